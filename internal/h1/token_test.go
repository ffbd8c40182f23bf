package h1

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"testing"
)

// TestByteClasses: tchar and the host characters hold exactly the bytes
// the RFCs list, written out here from RFC 9110 §5.6.2 and RFC 3986
// §3.2.2; controlBytes marks first the first control byte or DEL of a
// word, at each place, and nothing in a word without one.
func TestByteClasses(t *testing.T) {
	const rfc9110tchar = "!#$%&'*+-.^_`|~" // besides DIGIT and ALPHA
	const rfc3986host = "-._~" + "%" + "!$&'()*+,;=" + ":[]"
	for c := range 256 {
		b := byte(c)
		alnum := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
		if got, want := IsToken([]byte{b}), alnum || strings.IndexByte(rfc9110tchar, b) >= 0; got != want {
			t.Errorf("IsToken(%q) = %v, want %v", b, got, want)
		}
		if got, want := IsHost(string([]byte{b})), alnum || strings.IndexByte(rfc3986host, b) >= 0; got != want {
			t.Errorf("IsHost(%q) = %v, want %v", b, got, want)
		}
		for at := range 8 {
			for _, fill := range []byte{'a', ' ', 0x80, 0xff, 0x7e, 0x20} {
				w := []byte(strings.Repeat(string(fill), 8))
				w[at] = b
				m := controlBytes(binary.LittleEndian.Uint64(w))
				marked := b < 0x20 || b == 0x7f
				if m != 0 && !marked || marked && (m == 0 || bits.TrailingZeros64(m)/8 != at) {
					t.Errorf("controlBytes(%q) = %#x", w, m)
				}
			}
		}
	}
}

func TestIsToken(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"GET", true}, {"Content-Length", true}, {"x-custom_h.1~!", true},
		{"", false},               // 1*tchar
		{"Content Length", false}, // SP is a delimiter
		{"a:b", false}, {"a(b)", false}, {`"q"`, false}, {"a/b", false}, {"é", false},
	} {
		if got := IsToken(tt.s); got != tt.want {
			t.Errorf("IsToken(%q) = %v, want %v", tt.s, got, tt.want)
		}
		if got := IsToken([]byte(tt.s)); got != tt.want {
			t.Errorf("IsToken([]byte(%q)) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// TestEqualFold: RFC 9110 §5.1's case-insensitive names are ASCII's:
// letters A–Z fold and nothing else does.
func TestEqualFold(t *testing.T) {
	for _, tt := range []struct {
		s, t string
		want bool
	}{
		{"Content-Length", "content-length", true}, {"CLOSE", "close", true}, {"close", "CLOSE", true},
		{"", "", true}, {"close", "clos", false}, {"close", "closf", false},
		{"clo\u017fe", "close", false},           // U+017F folds to s in Unicode, not in ASCII
		{"\u212aeep-alive", "keep-alive", false}, // U+212A KELVIN SIGN folds to k in Unicode
		{"a-b", "a\rb", false},                   // '\r'|0x20 is '-': no bit trick here
		{"[", "{", false}, {"@", "`", false},     // the bytes beside the letters
	} {
		if got := EqualFold(tt.s, tt.t); got != tt.want {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tt.s, tt.t, got, tt.want)
		}
	}
}
