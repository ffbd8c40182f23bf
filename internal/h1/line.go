package h1

import (
	"bytes"
	"strings"
)

// CutLine cuts s after its first line: line is what comes before the
// line's CRLF, rest what follows it. ok is false, and line and rest are
// empty, when s holds no LF, when the first LF is not preceded by CR (a
// bare LF, which RFC 9112 §2.2 lets a recipient accept; these callers
// leave such messages to net/http), or when the line holds a CR elsewhere
// (a bare CR, which §2.2 makes the element invalid).
func CutLine[T string | []byte](s T) (line, rest T, ok bool) {
	i := indexByte(s, '\n')
	if i < 1 || s[i-1] != '\r' || indexByte(s[:i-1], '\r') >= 0 {
		return s[:0], s[:0], false
	}
	return s[:i-1], s[i+1:], true
}

func indexByte[T string | []byte](s T, c byte) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	return -1
}

// HeadEnd is the length of the head at the start of b, up to and with the
// CRLFCRLF that ends its last field line (RFC 9112 §2.1: the empty line
// before the content), or 0 when b holds none yet. It answers what
// bytes.Index(b, "\r\n\r\n")+4 does, found a LF at a time: a head has a
// CR at every line end, where bytes.Index tries a match each time.
func HeadEnd(b []byte) int {
	for i := 3; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return 0
		}
		i += j
		if b[i-1] == '\r' && b[i-2] == '\n' && b[i-3] == '\r' {
			return i + 1
		}
		i++
	}
	return 0
}

// HasBareLF reports whether b holds a LF not preceded by CR: a head whose
// lines end so never has the CRLFCRLF HeadEnd waits for, and a caller that
// takes only CRLF heads hands it on at once instead of waiting for bytes
// that will not come.
func HasBareLF(b []byte) bool {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return false
		}
		i += j
		if i == 0 || b[i-1] != '\r' {
			return true
		}
		i++
	}
	return false
}
