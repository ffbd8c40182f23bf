package h1loop

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// leanWriter is the lean loop's http.ResponseWriter, with net/http's
// framing rules: a declared Content-Length is kept to; a body of unknown
// length is sent with its Content-Length when the handler ends within
// 2 KiB, chunked beyond; Date and a sniffed Content-Type are added when
// missing; a request body the handler left unread is drained (256 KiB at
// most) before the answer, or the connection closes after it. The lean
// forwarder writes the next hop's head and body through rawHead and
// rawWrite instead, bytes as they came, less the hop-by-hop headers.
type leanWriter struct {
	lc         *leanConn
	req        *http.Request
	header     http.Header
	status     int
	cl         int64 // declared length, -1 unknown
	written    int64
	pre        []byte // body written before the head, length unknown
	headSent   bool
	chunked    bool
	noBody     bool // HEAD, 1xx, 204, 304
	closeAfter bool
	unreadBody bool // closing with request bytes unread: wait before the close
	hijacked   bool
	trailer    http.Header
	err        error // a write to the client failed
}

const preBodyLimit = 2048 // net/http's bufferBeforeChunkingSize

// newWriter makes the request's writer, in the context's allocation.
func (c *leanCtx) newWriter(r *http.Request) *leanWriter {
	c.writer = leanWriter{lc: c.lc, req: r, cl: -1, closeAfter: r.Close}
	return &c.writer
}

func (w *leanWriter) Header() http.Header {
	if w.header == nil {
		w.header = make(http.Header, 4)
	}
	return w.header
}

func (w *leanWriter) WriteHeader(code int) {
	if w.status != 0 || w.hijacked {
		return
	}
	if code < 100 || code > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(code))
	}
	if code < 200 {
		return // informational answers are not forwarded on this path
	}
	w.status = code
	w.noBody = w.req.Method == http.MethodHead || code == http.StatusNoContent || code == http.StatusNotModified
	if v := w.header.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			w.cl = n
		} else {
			w.header.Del("Content-Length")
		}
	}
}

func (w *leanWriter) Write(p []byte) (int, error) {
	if w.hijacked {
		return 0, http.ErrHijacked
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.noBody {
		return 0, http.ErrBodyNotAllowed
	}
	if w.cl >= 0 && w.written+int64(len(p)) > w.cl {
		return 0, http.ErrContentLength
	}
	if w.err != nil {
		return 0, w.err
	}
	w.written += int64(len(p))
	if !w.headSent && w.cl < 0 {
		if len(w.pre)+len(p) <= preBodyLimit {
			w.pre = append(w.pre, p...)
			return len(p), nil
		}
		w.chunked = true
	}
	if !w.headSent {
		w.sendHead(p)
	}
	return w.body(p)
}

// body writes p, as a chunk when chunked.
func (w *leanWriter) body(p []byte) (int, error) {
	bw := w.lc.bw
	if w.chunked && len(p) > 0 {
		bw.WriteString(strconv.FormatInt(int64(len(p)), 16))
		bw.WriteString("\r\n")
		bw.Write(p)
		_, err := bw.WriteString("\r\n")
		return w.fail(len(p), err)
	}
	_, err := bw.Write(p)
	return w.fail(len(p), err)
}

func (w *leanWriter) fail(n int, err error) (int, error) {
	if err != nil {
		w.err = err
		return 0, err
	}
	return n, nil
}

// Flush sends what is written so far (ReverseProxy flushes streams).
func (w *leanWriter) Flush() {
	if w.hijacked {
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.headSent {
		if w.cl < 0 && !w.noBody {
			w.chunked = true
		}
		w.sendHead(w.pre)
		w.body(w.pre)
		w.pre = nil
	}
	if err := w.lc.bw.Flush(); err != nil {
		w.err = err
	}
}

// Hijack gives the connection to the caller (the fault stage's reset).
func (w *leanWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.headSent {
		return nil, nil, http.ErrHijacked
	}
	w.lc.cr.abortPendingRead()
	w.hijacked = true
	return w.lc.c, bufio.NewReadWriter(w.lc.br, w.lc.bw), nil
}

// finish ends the answer: the head if not yet sent, the last chunk, the
// flush.
func (w *leanWriter) finish() {
	if w.hijacked {
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.headSent {
		if w.cl < 0 && !w.noBody {
			w.cl = int64(len(w.pre))
			w.header.Set("Content-Length", strconv.Itoa(len(w.pre)))
		}
		w.sendHead(w.pre)
		w.body(w.pre)
	}
	if w.cl >= 0 && w.written < w.cl && !w.noBody {
		w.closeAfter = true // a short body: the client must not read the next answer into it
	}
	bw := w.lc.bw
	if w.chunked {
		bw.WriteString("0\r\n")
		if len(w.trailer) > 0 {
			w.trailer.Write(bw)
		}
		bw.WriteString("\r\n")
	}
	if err := bw.Flush(); err != nil {
		w.err = err
	}
}

// drainBody reads what the handler left of the request body (net/http's
// rule) before the head goes out; what it cannot drain closes the
// connection after the answer.
func (w *leanWriter) drainBody() {
	lb, ok := w.lc.bodyOf(w.req)
	if !ok || w.closeAfter {
		return
	}
	switch {
	case lb.err == io.EOF || lb.left == 0:
		return
	case lb.err != nil:
		w.closeAfter = true
	case lb.left > maxPostHandlerRead:
		w.closeAfter, w.unreadBody = true, true
	default:
		saved := lb.closed
		lb.closed = false
		if _, err := io.Copy(io.Discard, lb); err != nil {
			w.closeAfter, w.unreadBody = true, true
		}
		lb.closed = saved
	}
}

// sendHead writes the status line and the handler's headers.
func (w *leanWriter) sendHead(first []byte) {
	w.drainBody()
	w.headSent = true
	h := w.Header()
	if _, ok := h["Content-Type"]; !ok && len(first) > 0 && !w.noBody {
		h.Set("Content-Type", http.DetectContentType(first))
	}
	w.statusLine(w.status)
	if w.closeAfter {
		h.Del("Connection")
	}
	h.Del("Transfer-Encoding")
	h.Write(w.lc.bw)
	w.tail(h.Get("Date") == "")
}

func (w *leanWriter) statusLine(code int) {
	bw := w.lc.bw
	bw.WriteString("HTTP/1.1 ")
	writeCode(bw, code)
	bw.WriteByte(' ')
	if text := http.StatusText(code); text != "" {
		bw.WriteString(text)
	} else {
		bw.WriteString("status code ")
		writeCode(bw, code)
	}
	bw.WriteString("\r\n")
}

// writeCode writes a status code, 100 to 999 (strconv.Itoa allocates the
// string of any number above 99).
func writeCode(bw *bufio.Writer, code int) {
	bw.WriteByte(byte('0' + code/100))
	bw.WriteByte(byte('0' + code/10%10))
	bw.WriteByte(byte('0' + code%10))
}

// tail writes the headers the writer adds itself, and the head's end.
func (w *leanWriter) tail(date bool) {
	bw := w.lc.bw
	if date {
		bw.WriteString("Date: ")
		bw.WriteString(w.lc.e.date.get())
		bw.WriteString("\r\n")
	}
	if w.chunked {
		bw.WriteString("Transfer-Encoding: chunked\r\n")
	}
	if w.closeAfter {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
}

// rawHead writes the next hop's head: status, its header lines (already
// without hop-by-hop ones), then the stages' own headers.
func (w *leanWriter) rawHead(status int, lines []byte, hasDate, chunked bool) {
	w.status, w.chunked = status, false
	w.noBody = w.req.Method == http.MethodHead || status == http.StatusNoContent || status == http.StatusNotModified
	w.drainBody()
	w.headSent = true
	w.statusLine(status)
	w.lc.bw.Write(lines)
	if len(w.header) > 0 {
		w.header.Write(w.lc.bw)
	}
	if chunked {
		w.lc.bw.WriteString("Transfer-Encoding: chunked\r\n")
	}
	w.tail(!hasDate)
	w.cl = -1
}

// rawFlush sends what rawHead and rawWrite buffered.
func (w *leanWriter) rawFlush() {
	if w.err == nil {
		if err := w.lc.bw.Flush(); err != nil {
			w.err = err
		}
	}
}

// rawWrite writes body bytes (chunk framing included) as they came.
func (w *leanWriter) rawWrite(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.lc.bw.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// bodyOf is the request's body as read from the connection, under the
// stages' wrappers of r.Body.
func (lc *leanConn) bodyOf(*http.Request) (*leanBody, bool) {
	return lc.ctx.body, lc.ctx.body != nil
}

// dateCache is a box's Date header value, made once a second.
type dateCache struct {
	mu sync.Mutex
	at int64
	v  string
}

func (d *dateCache) get() string {
	now := time.Now().Unix()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.at != now {
		d.at = now
		d.v = time.Unix(now, 0).UTC().Format(http.TimeFormat)
	}
	return d.v
}
