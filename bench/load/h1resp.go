package load

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"unsafe"
)

// h1Head is what the engine needs of a response head.
type h1Head struct {
	status int
	proto  uint8 // 10 or 11
	length int64 // Content-Length; -1 when absent
	close  bool  // the server ends the connection after this response
	gzip   bool  // Content-Encoding names gzip
	// serverTiming are views of the Server-Timing values in the read
	// buffer: valid until the buffer is read again (they are parsed first).
	serverTiming []string
	location     string // copied: only for a redirect status
}

// parseHead parses a response head (status line to the empty line, both
// included) in its common shapes: HTTP/1.0 or 1.1, a final status, no
// Transfer-Encoding, at most one Content-Length of plain digits, CRLF line
// ends, token keys and values textproto accepts, no folded lines. It
// reports false for anything else, which http.ReadResponse then reads, so
// that every unusual response is judged by net/http's own parser.
func parseHead(b []byte, h *h1Head) bool {
	*h = h1Head{length: -1, serverTiming: h.serverTiming[:0]}
	line, rest, ok := cutCRLF(b)
	// "HTTP/1.x 200" with an optional " reason".
	if !ok || len(line) < 12 || string(line[:7]) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') || !isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) {
		return false
	}
	h.proto = 10 + line[7] - '0'
	h.status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if h.status < 200 {
		return false // 1xx: informational responses and protocol switches
	}
	var hasClose, hasKeepAlive bool
	for {
		line, rest, ok = cutCRLF(rest)
		if !ok {
			return false
		}
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return false
		}
		key, value := line[:colon], trimOWSBytes(line[colon+1:])
		if !validValue(value) {
			return false
		}
		switch {
		case asciiEqualFold(key, "content-length"):
			if h.length >= 0 || len(value) == 0 || len(value) > 18 {
				return false
			}
			var n int64
			for _, c := range value {
				if !isDigit(c) {
					return false
				}
				n = n*10 + int64(c-'0')
			}
			h.length = n
		case asciiEqualFold(key, "transfer-encoding"):
			return false
		case asciiEqualFold(key, "connection"):
			hasClose = hasClose || hasToken(value, "close")
			hasKeepAlive = hasKeepAlive || hasToken(value, "keep-alive")
		case asciiEqualFold(key, "content-encoding"):
			h.gzip = h.gzip || hasGzip([]string{bytesView(value)})
		case asciiEqualFold(key, "server-timing"):
			h.serverTiming = append(h.serverTiming, bytesView(value))
		case asciiEqualFold(key, "location") && h.location == "":
			h.location = string(value)
		}
	}
	if len(rest) != 0 {
		return false // the head is cut at its empty line by the caller
	}
	// net/http's shouldClose.
	h.close = hasClose || (h.proto == 10 && !hasKeepAlive)
	return true
}

// bytesView is b as a string without a copy; the caller keeps it only
// while b is unchanged.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func cutCRLF(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 1 || b[i-1] != '\r' || bytes.IndexByte(b[:i-1], '\r') >= 0 {
		return nil, nil, false
	}
	return b[:i-1], b[i+1:], true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isToken reports whether b is an RFC 7230 token (a header name).
func isToken(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || !tokenByte[c] {
			return false
		}
	}
	return true
}

var tokenByte = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// validValue is textproto's rule for a header value's bytes: no control
// byte but tab.
func validValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func trimOWSBytes(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// asciiEqualFold compares b with lower, an ASCII lower-case name.
func asciiEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated list v holds token tok
// (ASCII case-insensitive), as httpguts.HeaderValuesContainsToken.
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var part []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			part, v = v[:i], v[i+1:]
		} else {
			part, v = v, nil
		}
		if asciiEqualFold(trimOWSBytes(part), tok) {
			return true
		}
	}
	return false
}

// h1Body reads a response body of known length from the connection's
// buffer; a connection that ends first is io.ErrUnexpectedEOF, as in
// net/http.
type h1Body struct {
	br   *bufio.Reader
	left int64 // -1: to the end of the connection
}

func (b *h1Body) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	if b.left > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
		if b.left == 0 {
			return n, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
	}
	return n, err
}

// slowHead reads the response with net/http's parser (http.ReadResponse)
// when parseHead declines it, skipping 1xx informational responses as
// net/http's transport does (101 is final). A protocol switch's body is
// the rest of the connection, as in net/http.
func slowHead(br *bufio.Reader, req *http.Request, h *h1Head) (io.Reader, error) {
	var resp *http.Response
	for {
		var err error
		if resp, err = http.ReadResponse(br, req); err != nil {
			return nil, err
		}
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	*h = h1Head{status: resp.StatusCode, proto: uint8(resp.ProtoMajor*10 + resp.ProtoMinor), length: resp.ContentLength,
		close: resp.Close, gzip: hasGzip(resp.Header["Content-Encoding"]), serverTiming: resp.Header["Server-Timing"],
		location: resp.Header.Get("Location")}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		h.close = true
		return &h1Body{br: br, left: -1}, nil
	}
	return resp.Body, nil
}

// bodyless reports whether a response to method with status has no body
// whatever its headers say (RFC 7230 3.3.3, net/http's fixLength).
func bodyless(method string, status int) bool {
	return method == http.MethodHead || status == http.StatusNoContent || status == http.StatusNotModified ||
		(status >= 100 && status < 200)
}
