package h1

// TrimOWS removes the optional white space (RFC 9110 §5.6.3: spaces and
// horizontal tabs, nothing else) at both ends of s.
func TrimOWS[T string | []byte](s T) T {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	return s[i:j]
}

// HasToken reports whether the comma-separated list v (RFC 9110 §5.6.1;
// the values of repeated fields joined with commas are one list) holds
// tok, compared ignoring ASCII case with the OWS around each element
// removed: "Connection: keep-alive, Close" holds "close". Empty elements
// are skipped, as §5.6.1 asks of a recipient.
func HasToken[T string | []byte](v T, tok string) bool {
	for start := 0; start <= len(v); {
		end := start
		for end < len(v) && v[end] != ',' {
			end++
		}
		if e := TrimOWS(v[start:end]); len(e) > 0 && EqualFold(e, tok) {
			return true
		}
		start = end + 1
	}
	return false
}
