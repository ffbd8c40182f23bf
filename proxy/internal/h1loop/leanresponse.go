package h1loop

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/middlebench/middlebench/internal/h1"
)

// respHead is an answer's head as the lean forwarder reads it.
type respHead struct {
	n       int // the head's length in the buffer
	status  int
	lines   []byte // header lines to pass on: in the head itself when none is dropped, else in buf
	buf     []byte
	cl      int64
	chunked bool
	close   bool // the next hop closes after it
	hasDate bool
	generic bool // not copied as bytes: read with http.ReadResponse
}

// readRespHead peeks an answer's head in br and sorts it.
func readRespHead(br *bufio.Reader, r *http.Request, buf []byte) (respHead, error) {
	head, whole, err := peekHead(br, nil)
	if err != nil && br.Buffered() == 0 {
		return respHead{buf: buf, cl: -1}, err
	}
	if err != nil || !whole {
		// a partial head, one larger than the buffer, or lines ended by LF
		// alone: net/http's parser reads it (and names what is wrong)
		return respHead{buf: buf, cl: -1, generic: true}, nil
	}
	return sortRespHead(head, r.Method, buf), nil
}

// sortRespHead sorts a whole answer head (up to its blank line) to the
// request of method: the lines to pass on go to buf when one is dropped.
func sortRespHead(head []byte, method string, buf []byte) respHead {
	h := respHead{buf: buf, cl: -1, n: len(head)}
	line, rest, ok := h1.CutLine(head)
	if !ok {
		h.generic = true
		return h
	}
	st, ok := h1.ParseStatusLine(line)
	if !ok || st.Major != 1 || st.Minor > 1 || st.Code < 100 {
		h.generic = true
		return h
	}
	v11, n := st.Minor == 1, st.Code
	h.status = n
	if n < 200 {
		return h
	}
	var hasCL, keepAlive bool
	first := len(head) - len(rest)
	dropped := false // a line was left out: the others are copied into buf
	keep := func(line []byte) {
		if dropped {
			h.buf = append(h.buf, line...)
		}
	}
	drop := func(at int) {
		if !dropped {
			h.buf = append(h.buf, head[first:at]...)
			dropped = true
		}
	}
	for off := first; len(head)-off > 2; {
		f, ok := h1.CutField(head[off:])
		if !ok {
			h.generic = true
			return h
		}
		line := head[off : off+f.Next]
		name, value := line[:f.Colon], line[f.ValueStart:f.ValueEnd]
		switch headerKind(name) {
		case "content-length":
			v, ok := h1.ContentLength(value) // 1*DIGIT: no sign (RFC 9110 §8.6)
			if hasCL || !ok {
				h.generic = true
				return h
			}
			h.cl, hasCL = v, true
			keep(line)
		case "transfer-encoding":
			if h.chunked || !v11 || !h1.EqualFold(value, "chunked") {
				h.generic = true
				return h
			}
			h.chunked = true
			drop(off)
		case "connection":
			for list, more := value, true; more; { // each element of the list (RFC 9110 §5.6.1)
				var t []byte
				t, list, more = bytes.Cut(list, []byte(","))
				switch t = h1.TrimOWS(t); {
				case h1.EqualFold(t, "close"):
					h.close = true
				case h1.EqualFold(t, "keep-alive"):
					keepAlive = true
				case len(t) == 0:
				default:
					h.generic = true // it names headers to drop
					return h
				}
			}
			drop(off)
		case "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "upgrade":
			drop(off)
		case "date":
			h.hasDate = true
			keep(line)
		default: // the trailer line too: the trailers pass with the chunks
			keep(line)
		}
		off += f.Next
	}
	if dropped {
		h.lines = h.buf
	} else {
		h.lines = head[first : len(head)-2]
	}
	if !v11 && !keepAlive {
		h.close = true
	}
	noBody := method == http.MethodHead || n == http.StatusNoContent || n == http.StatusNotModified
	switch {
	case h.chunked && hasCL, n == http.StatusSwitchingProtocols:
		h.generic = true
	case noBody:
		h.chunked = false
	case !h.chunked && !hasCL: // ended by the close
		h.generic = true
	}
	if !h.chunked && !noBody && !hasCL {
		h.generic = true
	}
	return h
}

// headerKind is name (a token) in lower case when it is one of the answer
// headers the lean forwarder acts on, else "". The candidates are picked by
// length: one or two comparisons per header line, not twelve.
func headerKind(name []byte) string {
	var k, k2 string
	switch len(name) { // the commonest, as servers spell them, compared whole first
	case 2:
		k = "te"
	case 4:
		if string(name) == "Date" {
			return "date"
		}
		k = "date"
	case 7:
		k, k2 = "upgrade", "trailer"
	case 10:
		k, k2 = "connection", "keep-alive"
	case 12:
		if string(name) == "Content-Type" {
			return "content-type"
		}
		k = "content-type"
	case 14:
		if string(name) == "Content-Length" {
			return "content-length"
		}
		k = "content-length"
	case 16:
		k = "proxy-connection"
	case 17:
		k = "transfer-encoding"
	case 18:
		k = "proxy-authenticate"
	case 19:
		k = "proxy-authorization"
	default:
		return ""
	}
	switch {
	case tokenIs(name, k):
		return k
	case k2 != "" && tokenIs(name, k2):
		return k2
	}
	return ""
}

// tokenIs reports whether the token name is lower (letters and '-', in
// lower case) in any case: setting bit 0x20 lowers a letter and leaves
// '-' as it is, and no other token byte becomes one of those.
func tokenIs(name []byte, lower string) bool {
	if len(name) != len(lower) {
		return false
	}
	for i := range len(name) {
		if name[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// copyN copies n body bytes from br to the client.
func copyN(lw *leanWriter, br *bufio.Reader, n int64) (int64, error) {
	var got int64
	for got < n {
		if br.Buffered() == 0 {
			// What came so far goes out before the wait for more: a box
			// passes a slow body's head and bytes on as they come (nginx
			// does), or the body's time would show in waiting.
			lw.rawFlush()
			if _, err := br.Peek(1); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return got, err
			}
		}
		k := int(min(int64(br.Buffered()), n-got))
		p, _ := br.Peek(k)
		if _, err := lw.rawWrite(p); err != nil {
			return got, err
		}
		_, _ = br.Discard(k)
		got += int64(k)
	}
	return got, nil
}

// copyChunked copies a chunked body, framing and trailers as they come,
// checking the framing so that the answer's end is known; it flushes
// whenever the next hop has nothing more buffered (ReverseProxy flushes
// bodies of unknown length at once).
func copyChunked(lw *leanWriter, br *bufio.Reader) (got int64, err error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return got, chunkErr(err)
		}
		size, ok := chunkSize(line)
		if !ok {
			return got, errors.New("malformed chunked encoding")
		}
		if _, err := lw.rawWrite(line); err != nil {
			return got, err
		}
		if size == 0 {
			for { // trailers, then the empty line
				line, err := br.ReadSlice('\n')
				if err != nil {
					return got, chunkErr(err)
				}
				if _, err := lw.rawWrite(line); err != nil {
					return got, err
				}
				if len(line) <= 2 {
					if !bytes.Equal(line, []byte("\r\n")) {
						return got, errors.New("malformed chunked encoding")
					}
					return got, nil
				}
			}
		}
		k, err := copyN(lw, br, size)
		got += k
		if err != nil {
			return got, err
		}
		crlf, err := br.Peek(2)
		if err != nil || !bytes.Equal(crlf, []byte("\r\n")) {
			return got, errors.New("malformed chunked encoding")
		}
		_, _ = lw.rawWrite(crlf)
		_, _ = br.Discard(2)
		if br.Buffered() == 0 {
			lw.Flush()
		}
	}
}

func chunkErr(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// chunkSize reads a chunk-size line with its CRLF ("1a;ext\r\n", as
// ReadSlice gives it); a bare CR anywhere in it is refused (RFC 9112 §2.2).
func chunkSize(lineCRLF []byte) (int64, bool) {
	line, rest, ok := h1.CutLine(lineCRLF)
	if !ok || len(rest) > 0 {
		return 0, false
	}
	return h1.ChunkSize(line)
}
