package h1

import "testing"

// TestChunkSize: RFC 9112 §7.1: chunk-size = 1*HEXDIG, then chunk-ext =
// *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ).
func TestChunkSize(t *testing.T) {
	for _, tt := range []struct {
		line string
		want int64
		ok   bool
	}{
		{"0", 0, true}, // the last chunk
		{"1a", 26, true}, {"1A", 26, true}, {"00ff", 255, true},
		{"5;name=value", 5, true}, {"5;a;b=\"q s\"", 5, true},
		{"5 ;ext", 5, true}, {"5\t; ext", 5, true}, // BWS before ';'
		{"5 ", 5, true}, // trailing white space with no extension: net/http's leniency
		{"7fffffffffffffff", 1<<63 - 1, true},
		{"000000000000000a", 10, true},  // 16 digits
		{"0000000000000000a", 0, false}, // 17: refused whatever the zeros, as net/http
		{"8000000000000000", 0, false},  // beyond int64
		{"", 0, false}, {";ext", 0, false}, {" 5", 0, false}, {"5 5", 0, false},
		{"0x5", 0, false}, {"+5", 0, false}, {"-5", 0, false}, {"g", 0, false},
	} {
		n, ok := ChunkSize(tt.line)
		if n != tt.want || ok != tt.ok {
			t.Errorf("ChunkSize(%q) = %d %v, want %d %v", tt.line, n, ok, tt.want, tt.ok)
		}
		if nb, okb := ChunkSize([]byte(tt.line)); nb != n || okb != ok {
			t.Errorf("ChunkSize([]byte(%q)) = %d %v, the string's %d %v", tt.line, nb, okb, n, ok)
		}
	}
}
