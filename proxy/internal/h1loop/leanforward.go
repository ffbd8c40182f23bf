package h1loop

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/h1"
	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// forwardHandler ends an HTTP box's handler chain: requests of the lean
// loop go through the lean forwarder, those net/http serves (handed-over
// connections) through ReverseProxy as before.
type forwardHandler struct {
	e  *Engine
	rp http.Handler
	tr *upstream.Transport
}

// loopPasser is the context of a request on the HTTP loop: the loop, not
// the forwarder, sends it on once the stages have run.
type loopPasser interface{ pass(r *http.Request) }

func (f *forwardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch ctx := r.Context().(type) {
	case *leanCtx:
		if ctx.lc.w != nil {
			f.forward(w, r, ctx)
			return
		}
	case loopPasser:
		ctx.pass(r)
		return
	}
	f.rp.ServeHTTP(w, r)
}

// The lean forwarder does what ReverseProxy (with the box's Rewrite) and
// upstream.Transport do, on the handler's goroutine: the request goes out
// with the same headers (hop-by-hop ones and any Forwarded / X-Forwarded-*
// removed, X-Forwarded-For, -Host and -Proto set, the client's Host kept,
// "Te: trailers" kept) and the answer comes back with hop-by-hop headers
// removed. A head whose framing it copies as bytes — Content-Length,
// chunked, or no body — is written straight to the client; anything else
// (a body ended by the close, a missing Content-Type to sniff, headers it
// does not parse, a stage's Server-Timing entries to add) is read with
// http.ReadResponse and written through the handler chain's writer, as
// ReverseProxy would. Errors answer as Config.ProxyError says (502, 504, 400,
// client gone) and a body cut by the next hop aborts the client's
// connection.
func (f *forwardHandler) forward(w http.ResponseWriter, r *http.Request, ctx *leanCtx) {
	lc := ctx.lc
	lc.head = lc.appendRequestHead(lc.head[:0], r)
	replayable := r.ContentLength == 0
	for {
		c, reused, err := f.tr.Get(ctx)
		if err != nil {
			f.e.cfg.ProxyError(w, r, ctxOr(ctx, err))
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
		if !reused || !replayable || ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout() || errors.Is(err, errUnsolicitedUpgrade) {
			f.e.cfg.ProxyError(w, r, ctxOr(ctx, err))
			return
		}
	}
}

// errUnsolicitedUpgrade: a 101 to a request that asked for no upgrade
// (the lean paths take none): the next hop's error, 502 as net/http's
// ReverseProxy answers it, not an interim answer to skip — what follows
// it on the connection is another protocol.
var errUnsolicitedUpgrade = errors.New("the next hop switched protocols (101) though the request asked for no upgrade")

// ctxOr is the context's error once it has ended, else err (as
// upstream.Transport's exchange reports it).
func ctxOr(ctx *leanCtx, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
}

// exchange writes the request on c and reads the answer's head (1xx heads
// skipped), left unconsumed in c.R.
func (f *forwardHandler) exchange(c *upstream.Conn, lc *leanConn, r *http.Request) (respHead, error) {
	c.W.Write(lc.head)
	if r.ContentLength > 0 {
		n, err := io.CopyN(c.W, r.Body, r.ContentLength)
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("http: ContentLength=%d with Body length %d", r.ContentLength, n)
			}
			return respHead{}, err
		}
	}
	if err := c.W.Flush(); err != nil {
		return respHead{}, err
	}
	now := time.Now()
	if f.tr.HeaderTimeout > 0 {
		c.SetReadDue(now.Add(f.tr.HeaderTimeout))
	}
	lc.e.waits.add(lc.ctx, now)
	defer lc.e.waits.remove(lc.ctx)
	for {
		h, err := readRespHead(c.R, r, lc.resp[:0])
		if err != nil {
			return h, err
		}
		lc.resp = h.buf
		if h.status == http.StatusSwitchingProtocols {
			return h, errUnsolicitedUpgrade
		}
		if h.status >= 100 && h.status <= 199 && !h.generic {
			_, _ = c.R.Discard(h.n)
			continue // 100 Continue, 103 Early Hints: the final answer follows
		}
		if f.tr.HeaderTimeout > 0 {
			c.SetReadDue(time.Time{}) // the body takes as long as it takes
			if lc.ctx.Err() != nil {
				c.Interrupt() // the client left meanwhile: keep its interruption
			}
		}
		return h, nil
	}
}

// respond copies the answer to the client, straight or through w, and
// gives c back to the pool when its body was read to the end.
func (f *forwardHandler) respond(w http.ResponseWriter, r *http.Request, ctx *leanCtx, c *upstream.Conn, h respHead) {
	lw := ctx.lc.w
	if h.generic || !exchange.Claim(w, lw) {
		f.respondThrough(w, r, c, ctx.release)
		return
	}
	_, _ = c.R.Discard(h.n)
	lw.rawHead(h.status, h.lines, h.hasDate, h.chunked)
	var got int64
	var err error
	switch {
	case lw.noBody:
	case h.chunked:
		got, err = copyChunked(lw, c.R)
	default:
		got, err = copyN(lw, c.R, h.cl)
	}
	if err == nil {
		if ctx.release() && !h.close {
			f.tr.Put(c)
		} else {
			c.Close()
		}
		return
	}
	ctx.release()
	c.Close()
	if lw.err == nil && ctx.Err() == nil { // the next hop's doing, not the client's
		of := ""
		if !h.chunked {
			of = fmt.Sprintf(" of %d announced", h.cl)
		}
		f.e.cfg.Cut(ctx.ex, fmt.Sprintf("the next hop ended the body after %d bytes%s (%v): the client's connection was aborted", got, of, err))
	}
	panic(http.ErrAbortHandler) // as ReverseProxy: the client must see an error, not a short body
}

// respondThrough reads the answer with net/http's parser and writes it
// through w, as ReverseProxy does.
func (f *forwardHandler) respondThrough(w http.ResponseWriter, r *http.Request, c *upstream.Conn, stop func() bool) {
	resp, err := http.ReadResponse(c.R, r)
	if err == nil && resp.StatusCode < 100 {
		// net/http reads "000" to "099" as statuses below 100, which no
		// ResponseWriter takes (WriteHeader panics on them): a malformed
		// answer.
		code, _, _ := strings.Cut(resp.Status, " ")
		err = fmt.Errorf("malformed HTTP status code %q", code)
	}
	if err != nil {
		stop()
		c.Close()
		f.e.cfg.ProxyError(w, r, err)
		return
	}
	resp.Request = r
	resp.Body = upstream.NewBody(resp.Body, c, f.tr, stop, !resp.Close)
	_ = f.e.cfg.WatchResponse(resp)
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
	bp := copybuf.Get()
	defer copybuf.Put(bp)
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
			f.e.cfg.Log.Printf("read error during body copy: %v", rerr)
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
func (lc *leanConn) appendRequestHead(b []byte, r *http.Request) []byte {
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
	if listed(r.Header["Te"], "trailers") {
		b = append(b, "Te: trailers\r\n"...)
	}
	if r.ContentLength > 0 {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, r.ContentLength, 10)
		b = append(b, "\r\n"...)
	}
	if ip, ok := lc.forwardedFor(r.RemoteAddr); ok {
		b = append(b, "X-Forwarded-For: "...)
		b = append(b, ip...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "X-Forwarded-Host: "...)
	b = append(b, r.Host...)
	b = append(b, "\r\nX-Forwarded-Proto: http\r\n\r\n"...)
	return b
}

// forwardedFor is the host of remoteAddr: the connection's own address is
// split once, when it is accepted (a stage could set another).
func (lc *leanConn) forwardedFor(remoteAddr string) (string, bool) {
	if remoteAddr == lc.remote {
		return lc.remoteHost, lc.hasRemoteHost
	}
	ip, _, err := net.SplitHostPort(remoteAddr)
	return ip, err == nil
}

// listed reports whether the values of a list header (Connection, TE)
// hold the token k (RFC 9110 §5.6.1: repeated fields are one list).
func listed(vals []string, k string) bool {
	for _, v := range vals {
		if h1.HasToken(v, k) {
			return true
		}
	}
	return false
}
