package h1

// IsHost reports whether s is made only of the characters of a Host
// field's value (RFC 9110 §7.2: uri-host [":" port], RFC 3986 §3.2.2):
// unreserved, pct-encoded, sub-delims, ':', '[' and ']', the set net/http
// checks too. It does not check the form (brackets, port digits); the
// empty string passes (HTTP/1.1 allows an empty Host when the target has
// no authority).
func IsHost[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if !inSet(s[i], hostLo, hostHi) {
			return false
		}
	}
	return true
}
