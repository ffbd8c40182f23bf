package load

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"unsafe"

	"github.com/middlebench/middlebench/internal/h1"
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
// Transfer-Encoding, at most one Content-Length, CRLF line ends, token
// names and values without control bytes, no folded lines (internal/h1
// reads each). It reports false for anything else, which http.ReadResponse
// then reads, so that every unusual response is judged by net/http's own
// parser.
func parseHead(b []byte, h *h1Head) bool {
	*h = h1Head{length: -1, serverTiming: h.serverTiming[:0]}
	line, rest, ok := h1.CutLine(b)
	if !ok {
		return false
	}
	st, ok := h1.ParseStatusLine(line)
	if !ok || st.Major != 1 || st.Minor > 1 {
		return false
	}
	h.proto, h.status = uint8(10+st.Minor), st.Code
	if h.status < 200 {
		return false // 1xx: informational responses and protocol switches
	}
	var hasClose, hasKeepAlive bool
	for !bytes.HasPrefix(rest, crlf) {
		f, ok := h1.CutField(rest)
		if !ok {
			return false
		}
		key, value := rest[:f.Colon], rest[f.ValueStart:f.ValueEnd]
		rest = rest[f.Next:]
		switch {
		case h1.EqualFold(key, "content-length"):
			n, ok := h1.ContentLength(value)
			if h.length >= 0 || !ok {
				return false
			}
			h.length = n
		case h1.EqualFold(key, "transfer-encoding"):
			return false
		case h1.EqualFold(key, "connection"):
			hasClose = hasClose || h1.HasToken(value, "close")
			hasKeepAlive = hasKeepAlive || h1.HasToken(value, "keep-alive")
		case h1.EqualFold(key, "content-encoding"):
			h.gzip = h.gzip || hasGzip([]string{bytesView(value)})
		case h1.EqualFold(key, "server-timing"):
			h.serverTiming = append(h.serverTiming, bytesView(value))
		case h1.EqualFold(key, "location") && h.location == "":
			h.location = string(value)
		}
	}
	if len(rest) != len(crlf) {
		return false // the head is cut at its empty line by the caller
	}
	// net/http's shouldClose.
	h.close = hasClose || (h.proto == 10 && !hasKeepAlive)
	return true
}

var crlf = []byte("\r\n")

// bytesView is b as a string without a copy; the caller keeps it only
// while b is unchanged.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
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
