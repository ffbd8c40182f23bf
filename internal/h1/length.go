package h1

import "math"

// ContentLength reads a Content-Length field's value, OWS already removed
// (CutField does): RFC 9110 §8.6's 1*DIGIT, leading zeros allowed, up to
// the largest int64. ok is false for anything else: empty, a sign, a
// space, a comma list (even of equal values, which §8.6 lets a recipient
// either reject or fold; these callers hand it to net/http), an overflow.
func ContentLength[T string | []byte](v T) (n int64, ok bool) {
	if len(v) == 0 {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isDigit(c) {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
