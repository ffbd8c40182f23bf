package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// forwardHandler ends an HTTP box's handler chain: requests of the lean
// loop go through the lean forwarder, those net/http serves (handed-over
// connections) through ReverseProxy as before.
type forwardHandler struct {
	b  *Box
	rp http.Handler
	tr *upstreamTransport
}

func (f *forwardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, ok := r.Context().(*leanCtx)
	if !ok || ctx.lc.w == nil {
		f.rp.ServeHTTP(w, r)
		return
	}
	f.forward(w, r, ctx)
}

// The lean forwarder does what ReverseProxy (with the box's Rewrite) and
// upstreamTransport do, on the handler's goroutine: the request goes out
// with the same headers (hop-by-hop ones and any Forwarded / X-Forwarded-*
// removed, X-Forwarded-For, -Host and -Proto set, the client's Host kept,
// "Te: trailers" kept) and the answer comes back with hop-by-hop headers
// removed. A head whose framing it copies as bytes — Content-Length,
// chunked, or no body — is written straight to the client; anything else
// (a body ended by the close, a missing Content-Type to sniff, headers it
// does not parse, a stage's Server-Timing entries to add) is read with
// http.ReadResponse and written through the handler chain's writer, as
// ReverseProxy would. Errors answer as proxyError says (502, 504, 400,
// client gone) and a body cut by the next hop aborts the client's
// connection.
func (f *forwardHandler) forward(w http.ResponseWriter, r *http.Request, ctx *leanCtx) {
	lc := ctx.lc
	lc.head = appendRequestHead(lc.head[:0], r)
	replayable := r.ContentLength == 0
	for {
		c, reused, err := f.tr.get(ctx)
		if err != nil {
			f.b.proxyError(w, r, ctxOr(ctx, err))
			return
		}
		ctx.interruptOnCancel(c)
		h, err := f.exchange(c, lc, r)
		if err == nil {
			f.respond(w, r, ctx, c, h)
			return
		}
		ctx.release()
		c.Close()
		var ne net.Error
		if !reused || !replayable || ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() {
			f.b.proxyError(w, r, ctxOr(ctx, err))
			return
		}
	}
}

// ctxOr is the context's error once it has ended, else err (as
// upstreamTransport's exchange reports it).
func ctxOr(ctx *leanCtx, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// exchange writes the request on c and reads the answer's head (1xx heads
// skipped), left unconsumed in c.br.
func (f *forwardHandler) exchange(c *upstreamConn, lc *leanConn, r *http.Request) (respHead, error) {
	c.bw.Write(lc.head)
	if r.ContentLength > 0 {
		n, err := io.CopyN(c.bw, r.Body, r.ContentLength)
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("http: ContentLength=%d with Body length %d", r.ContentLength, n)
			}
			return respHead{}, err
		}
	}
	if err := c.bw.Flush(); err != nil {
		return respHead{}, err
	}
	if f.tr.headerTimeout > 0 {
		_ = c.SetReadDeadline(time.Now().Add(f.tr.headerTimeout))
	}
	lc.b.waits.add(lc.ctx)
	defer lc.b.waits.remove(lc.ctx)
	for {
		h, err := readRespHead(c.br, r, lc.resp[:0])
		if err != nil {
			return h, err
		}
		lc.resp = h.lines
		if h.status >= 100 && h.status <= 199 && !h.generic {
			_, _ = c.br.Discard(h.n)
			continue // 100 Continue, 103 Early Hints: the final answer follows
		}
		if f.tr.headerTimeout > 0 {
			_ = c.SetReadDeadline(time.Time{}) // the body takes as long as it takes
			if lc.ctx.Err() != nil {
				_ = c.SetDeadline(time.Unix(1, 0)) // the client left meanwhile: keep its interruption
			}
		}
		return h, nil
	}
}

// respond copies the answer to the client, straight or through w, and
// gives c back to the pool when its body was read to the end.
func (f *forwardHandler) respond(w http.ResponseWriter, r *http.Request, ctx *leanCtx, c *upstreamConn, h respHead) {
	lw := ctx.lc.w
	aw, bare := w.(*answerWriter)
	if h.generic || !bare || aw.ResponseWriter != http.ResponseWriter(lw) {
		f.respondThrough(w, r, c, ctx.release)
		return
	}
	_, _ = c.br.Discard(h.n)
	aw.wrote = true
	lw.rawHead(h.status, h.lines, h.hasDate, h.chunked)
	var got int64
	var err error
	switch {
	case lw.noBody:
	case h.chunked:
		got, err = copyChunked(lw, c.br)
	default:
		got, err = copyN(lw, c.br, h.cl)
	}
	if err == nil {
		if ctx.release() && !h.close {
			f.tr.put(c)
		} else {
			c.Close()
		}
		return
	}
	ctx.release()
	c.Close()
	if lw.err == nil && ctx.Err() == nil { // the next hop's doing, not the client's
		f.b.upstreamCuts.Add(1)
		of := ""
		if !h.chunked {
			of = fmt.Sprintf(" of %d announced", h.cl)
		}
		f.b.record(ctx.ex, ActCut, 0, fmt.Sprintf("the next hop ended the body after %d bytes%s (%v): the client's connection was aborted", got, of, err))
	}
	panic(http.ErrAbortHandler) // as ReverseProxy: the client must see an error, not a short body
}

// respondThrough reads the answer with net/http's parser and writes it
// through w, as ReverseProxy does.
func (f *forwardHandler) respondThrough(w http.ResponseWriter, r *http.Request, c *upstreamConn, stop func() bool) {
	resp, err := http.ReadResponse(c.br, r)
	if err != nil {
		stop()
		c.Close()
		f.b.proxyError(w, r, err)
		return
	}
	resp.Request = r
	resp.Body = &upstreamBody{ReadCloser: resp.Body, c: c, t: f.tr, stop: stop, reuse: !resp.Close}
	_ = f.b.watchResponse(resp)
	removeHopByHop(resp.Header)
	dst := w.Header()
	for k, vv := range resp.Header {
		for _, v := range vv {
			dst.Add(k, v)
		}
	}
	if n := len(resp.Trailer); n > 0 {
		keys := make([]string, 0, n)
		for k := range resp.Trailer {
			keys = append(keys, k)
		}
		dst.Add("Trailer", strings.Join(keys, ", "))
	}
	w.WriteHeader(resp.StatusCode)
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	flush := resp.ContentLength == -1
	for {
		n, rerr := resp.Body.Read(*bp)
		if n > 0 {
			if _, werr := w.Write((*bp)[:n]); werr != nil {
				resp.Body.Close()
				panic(http.ErrAbortHandler)
			}
			if flush {
				http.NewResponseController(w).Flush()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			resp.Body.Close()
			f.b.log.Printf("read error during body copy: %v", rerr)
			panic(http.ErrAbortHandler)
		}
	}
	resp.Body.Close()
	if len(resp.Trailer) > 0 {
		f.leanWriterOf(w).trailer = resp.Trailer
	}
}

func (f *forwardHandler) leanWriterOf(w http.ResponseWriter) *leanWriter {
	for range 16 {
		switch v := w.(type) {
		case *leanWriter:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return &leanWriter{}
		}
	}
	return &leanWriter{}
}

// removeHopByHop deletes the hop-by-hop headers and those Connection names.
func removeHopByHop(h http.Header) {
	for _, v := range h["Connection"] {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				h.Del(f)
			}
		}
	}
	for _, k := range hopByHop {
		h.Del(k)
	}
}

// hopByHop: ReverseProxy's list.
var hopByHop = [...]string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// appendRequestHead appends the request head the next hop gets.
func appendRequestHead(b []byte, r *http.Request) []byte {
	b = append(b, r.Method...)
	b = append(b, ' ')
	b = append(b, r.URL.EscapedPath()...)
	if r.URL.ForceQuery || r.URL.RawQuery != "" {
		b = append(b, '?')
		b = append(b, r.URL.RawQuery...)
	}
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, r.Host...)
	b = append(b, "\r\n"...)
	conn := r.Header["Connection"]
	for k, vv := range r.Header {
		switch k {
		case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer",
			"Transfer-Encoding", "Upgrade", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Content-Length":
			continue
		}
		if len(conn) > 0 && listed(conn, k) {
			continue
		}
		for _, v := range vv {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	if te := r.Header["Te"]; len(te) > 0 && headerHasToken(strings.Join(te, ","), "trailers") {
		b = append(b, "Te: trailers\r\n"...)
	}
	if r.ContentLength > 0 {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, r.ContentLength, 10)
		b = append(b, "\r\n"...)
	}
	if ip, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		b = append(b, "X-Forwarded-For: "...)
		b = append(b, ip...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "X-Forwarded-Host: "...)
	b = append(b, r.Host...)
	b = append(b, "\r\nX-Forwarded-Proto: http\r\n\r\n"...)
	return b
}

// listed reports whether a Connection header names k.
func listed(conn []string, k string) bool {
	for _, v := range conn {
		for v != "" {
			var t string
			t, v, _ = strings.Cut(v, ",")
			if strings.EqualFold(strings.TrimSpace(t), k) {
				return true
			}
		}
	}
	return false
}

// respHead is an answer's head as the lean forwarder reads it.
type respHead struct {
	n       int // the head's length in the buffer
	status  int
	lines   []byte // header lines to pass on
	cl      int64
	chunked bool
	close   bool // the next hop closes after it
	hasDate bool
	generic bool // not copied as bytes: read with http.ReadResponse
}

// readRespHead peeks an answer's head in br and sorts it.
func readRespHead(br *bufio.Reader, r *http.Request, lines []byte) (respHead, error) {
	h := respHead{lines: lines, cl: -1}
	var head []byte
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			return h, err
		}
	}
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			head = buf[:i+4]
			break
		}
		if br.Buffered() == br.Size() || bareLF(buf) {
			h.generic = true // a head larger than the buffer, or lines ended by LF alone
			return h, nil
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			h.generic = true // a partial head: net/http's parser names what is wrong
			return h, nil
		}
	}
	h.n = len(head)
	status, rest, _ := bytes.Cut(head, []byte("\r\n"))
	proto, code, _ := bytes.Cut(status, []byte(" "))
	code, _, _ = bytes.Cut(code, []byte(" "))
	v11 := string(proto) == "HTTP/1.1"
	if !v11 && string(proto) != "HTTP/1.0" || len(code) != 3 {
		h.generic = true
		return h, nil
	}
	n, err := strconv.Atoi(string(code))
	if err != nil || n < 100 {
		h.generic = true
		return h, nil
	}
	h.status = n
	if n < 200 {
		return h, nil
	}
	var hasCT, hasCL, keepAlive bool
	for len(rest) > 2 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !validToken(string(name)) || !validValue(string(value)) {
			h.generic = true
			return h, nil
		}
		value = bytes.Trim(value, " \t")
		switch headerKind(name) {
		case "content-length":
			v, err := strconv.ParseInt(string(value), 10, 64)
			if hasCL || err != nil || v < 0 {
				h.generic = true
				return h, nil
			}
			h.cl, hasCL = v, true
			h.lines = append(h.lines, line...)
			h.lines = append(h.lines, "\r\n"...)
		case "transfer-encoding":
			if h.chunked || !v11 || !strings.EqualFold(string(value), "chunked") {
				h.generic = true
				return h, nil
			}
			h.chunked = true
		case "connection":
			for _, t := range strings.Split(string(value), ",") {
				switch t = strings.ToLower(strings.TrimSpace(t)); t {
				case "close":
					h.close = true
				case "keep-alive":
					keepAlive = true
				case "":
				default:
					h.generic = true // it names headers to drop
					return h, nil
				}
			}
		case "proxy-connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "upgrade":
		case "trailer":
			h.lines = append(h.lines, line...) // the trailers pass with the chunks
			h.lines = append(h.lines, "\r\n"...)
		case "content-type":
			hasCT = true
			h.lines = append(h.lines, line...)
			h.lines = append(h.lines, "\r\n"...)
		case "date":
			h.hasDate = true
			fallthrough
		default:
			h.lines = append(h.lines, line...)
			h.lines = append(h.lines, "\r\n"...)
		}
	}
	if !v11 && !keepAlive {
		h.close = true
	}
	noBody := r.Method == http.MethodHead || n == http.StatusNoContent || n == http.StatusNotModified
	switch {
	case h.chunked && hasCL, n == http.StatusSwitchingProtocols:
		h.generic = true
	case noBody:
		h.chunked = false
	case !h.chunked && !hasCL: // ended by the close
		h.generic = true
	case !hasCT && (h.chunked || h.cl > 0): // net/http would sniff a Content-Type
		h.generic = true
	}
	if !h.chunked && !noBody && !hasCL {
		h.generic = true
	}
	return h, nil
}

// specialHeaders are the answer headers the lean forwarder acts on.
var specialHeaders = [...]string{"content-length", "transfer-encoding", "connection", "proxy-connection", "keep-alive",
	"proxy-authenticate", "proxy-authorization", "te", "upgrade", "trailer", "content-type", "date"}

// headerKind is name's entry in specialHeaders, in lower case, or "".
func headerKind(name []byte) string {
	for _, k := range specialHeaders {
		if len(k) == len(name) && strings.EqualFold(k, string(name)) {
			return k
		}
	}
	return ""
}

// copyN copies n body bytes from br to the client.
func copyN(lw *leanWriter, br *bufio.Reader, n int64) (int64, error) {
	var got int64
	for got < n {
		if br.Buffered() == 0 {
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

// chunkSize parses a chunk-size line ("1a;ext\r\n").
func chunkSize(line []byte) (int64, bool) {
	line, ok := bytes.CutSuffix(line, []byte("\r\n"))
	if !ok {
		return 0, false
	}
	line, _, _ = bytes.Cut(line, []byte(";"))
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(line), 16, 63)
	return int64(n), err == nil
}
