package h1

// Byte classes as bit sets, bytes 0–63 in the first word and 64–127 in
// the second (TestByteClasses spells them out): RFC 9110's tchar (letters,
// digits, !#$%&'*+-.^_`|~) and the characters of a host[:port] (letters,
// digits, -._~:[]%!$&'()*+,;=).
const (
	tcharLo, tcharHi = 0x03ff6cfa00000000, 0x57ffffffc7fffffe
	hostLo, hostHi   = 0x2fff7ff200000000, 0x47fffffeaffffffe
)

func inSet(c byte, lo, hi uint64) bool {
	switch {
	case c < 64:
		return lo&(1<<c) != 0
	case c < 128:
		return hi&(1<<(c-64)) != 0
	}
	return false
}

// tchar is tcharLo/Hi as a table: one load a byte in the loops that scan
// names. Filled once, never written after.
var tchar = func() (t [256]bool) {
	for c := range 256 {
		t[c] = inSet(byte(c), tcharLo, tcharHi)
	}
	return t
}()

// IsToken reports whether s is a token (RFC 9110 §5.6.2: 1*tchar), the
// syntax of a method, a field name, a transfer coding or a connection
// option. The empty string is not one.
func IsToken[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tchar[s[i]] {
			return false
		}
	}
	return true
}

// EqualFold reports whether s and t are equal ignoring ASCII case, the
// comparison RFC 9110 asks for field names (§5.1), tokens in lists such as
// Connection (§7.6.1) and codings (§8.4.1). Only A–Z fold: unlike
// strings.EqualFold, "ſ" (U+017F) is not "s" and "K" (U+212A) is not "k".
func EqualFold[T string | []byte](s T, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerASCII(s[i]) != lowerASCII(t[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
