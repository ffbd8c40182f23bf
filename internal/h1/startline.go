package h1

// RequestLine is a request line's parts (RFC 9112 §3), views into the
// line it was read from.
type RequestLine[T string | []byte] struct {
	Method, Target T
	Major, Minor   int // the HTTP-version's digits
}

// ParseRequestLine reads a request line without its CRLF (CutLine's
// line): method SP request-target SP HTTP-version, each separated by one
// SP as §3 requires (the lenient whitespace splitting §3 allows, and warns
// may smuggle requests, is not done). The method must be a token, the
// target non-empty with no white space, control byte or DEL (§3.2: a
// URI's characters; the form of the target is the caller's to check), and
// the version "HTTP/" DIGIT "." DIGIT with HTTP in upper case (§2.3).
func ParseRequestLine[T string | []byte](line T) (r RequestLine[T], ok bool) {
	sp1 := indexByte(line, ' ')
	if sp1 < 0 {
		return r, false
	}
	sp2 := indexByte(line[sp1+1:], ' ')
	if sp2 < 0 {
		return r, false
	}
	sp2 += sp1 + 1
	r.Method, r.Target = line[:sp1], line[sp1+1:sp2]
	if !IsToken(r.Method) || len(r.Target) == 0 {
		return r, false
	}
	for i := 0; i < len(r.Target); i++ {
		if c := r.Target[i]; c <= ' ' || c == 0x7f {
			return r, false
		}
	}
	r.Major, r.Minor, ok = version(line[sp2+1:])
	return r, ok
}

// StatusLine is a status line's parts (RFC 9112 §4); Reason is a view
// into the line it was read from.
type StatusLine[T string | []byte] struct {
	Major, Minor int // the HTTP-version's digits
	Code         int // the three digits, 000–999
	Reason       T
}

// ParseStatusLine reads a status line without its CRLF (CutLine's line):
// HTTP-version SP status-code [SP reason-phrase]. The code is any three
// digits (its range, 100–599 in RFC 9110 §15, is the caller's to check).
// The reason is not looked at beyond CutLine's checks: §4 has a client
// ignore it. One leniency, net/http's too: a line that ends after the code
// is read as one with an empty reason, though §4 writes the SP before it
// as required.
func ParseStatusLine[T string | []byte](line T) (s StatusLine[T], ok bool) {
	if len(line) < len("HTTP/1.1 200") || line[8] != ' ' || len(line) > 12 && line[12] != ' ' {
		return s, false
	}
	if s.Major, s.Minor, ok = version(line[:8]); !ok {
		return s, false
	}
	for i := 9; i < 12; i++ {
		if !isDigit(line[i]) {
			return s, false
		}
		s.Code = s.Code*10 + int(line[i]-'0')
	}
	if len(line) > 12 {
		s.Reason = line[13:]
	}
	return s, true
}

// version reads an HTTP-version (RFC 9112 §2.3): "HTTP/" DIGIT "." DIGIT,
// the name case-sensitive.
func version[T string | []byte](v T) (major, minor int, ok bool) {
	if len(v) != len("HTTP/1.1") || string(v[:5]) != "HTTP/" || !isDigit(v[5]) || v[6] != '.' || !isDigit(v[7]) {
		return 0, 0, false
	}
	return int(v[5] - '0'), int(v[7] - '0'), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
