package h1

import "testing"

// TestContentLength: RFC 9110 §8.6: Content-Length = 1*DIGIT.
func TestContentLength(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"3495", 3495, true}, {"007", 7, true},
		{"9223372036854775807", 1<<63 - 1, true},
		{"0000000000000000000000000000042", 42, true},
		{"9223372036854775808", 0, false}, // beyond int64
		{"99999999999999999999", 0, false},
		{"", 0, false}, {"+5", 0, false}, {"-0", 0, false}, {"-5", 0, false},
		{"5 ", 0, false}, {" 5", 0, false}, // OWS is the field's, removed before
		{"5, 5", 0, false}, {"5,5", 0, false}, // §8.6's list: refused, not folded
		{"0x10", 0, false}, {"1_000", 0, false}, {"1e3", 0, false}, {"٣", 0, false},
	} {
		n, ok := ContentLength(tt.v)
		if n != tt.want || ok != tt.ok {
			t.Errorf("ContentLength(%q) = %d %v, want %d %v", tt.v, n, ok, tt.want, tt.ok)
		}
		if nb, okb := ContentLength([]byte(tt.v)); nb != n || okb != ok {
			t.Errorf("ContentLength([]byte(%q)) = %d %v, the string's %d %v", tt.v, nb, okb, n, ok)
		}
	}
}
