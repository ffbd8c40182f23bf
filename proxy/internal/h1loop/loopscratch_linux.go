//go:build linux

package h1loop

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// loopScratch is what the HTTP loop serves each request with: the loop
// runs one request's stages, or writes one answer's head, at a time, so
// one request, header, context and writer serve them all in turn (a
// request's stages keep nothing of it: they decide at once). Answer bytes
// are written into out through the lean loop's writer, which frames them
// as it does on its own connections.
type loopScratch struct {
	lc     leanConn // the writer's connection: no socket, its writes go to out
	ctx    loopCtx
	req    *http.Request // made once with ctx: a request's context cannot be set without a copy
	url    url.URL
	header http.Header
	vals   []string
	hdr    http.Header // the writer's, emptied for each answer
	out    outSink
	resp   []byte // the answer header lines sortRespHead copies
}

// outSink collects what is written to it.
type outSink struct{ b []byte }

func (s *outSink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

func (sc *loopScratch) init(lp *httpLoop) {
	sc.lc = leanConn{e: lp.e, ctx: &leanCtx{}, fd: -1}
	sc.lc.bw = bufio.NewWriterSize(&sc.out, leanBufSize)
	sc.ctx.lp = lp
	sc.req = (&http.Request{}).WithContext(&sc.ctx)
	sc.header = make(http.Header, 8)
	sc.hdr = make(http.Header, 4)
}

// parse parses a whole request head into the scratch header.
func (sc *loopScratch) parse(raw []byte) (requestHead, error) {
	clear(sc.header)
	p, vals, err := parseHead(raw, sc.header, sc.vals[:0])
	sc.vals = vals[:0]
	return p, err
}

// request is the scratch request, set to client c's parsed head p.
func (sc *loopScratch) request(c *loopClient, p requestHead) *http.Request {
	r := sc.req
	r.Method, r.URL = p.method, p.url
	if r.URL == nil {
		sc.url = url.URL{Path: p.target}
		r.URL = &sc.url
	}
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.Header, r.Host, r.RequestURI, r.RemoteAddr = sc.header, p.host, p.target, c.remote
	r.ContentLength, r.Close, r.Body, r.GetBody = 0, p.close, http.NoBody, nil
	r.TransferEncoding, r.Trailer, r.Form, r.PostForm, r.MultipartForm = nil, nil, nil, nil, nil
	sc.lc.remote, sc.lc.remoteHost, sc.lc.hasRemoteHost = c.remote, c.remoteHost, c.hasRemoteHost
	return r
}

// answering is the scratch request as far as an answer to c's request
// needs it (its method and Connection: close), with the context reset to
// its exchange.
func (sc *loopScratch) answering(c *loopClient) *http.Request {
	r := sc.req
	r.Method, r.Close, r.ContentLength, r.Body, r.RemoteAddr = c.method, c.closeReq, 0, http.NoBody, c.remote
	sc.ctx.reset(c)
	return r
}

// writer is the scratch writer for r, with the headers of stage (the
// stages' own, for an answer the next hop gives) in its header.
func (sc *loopScratch) writer(r *http.Request, stage http.Header) *leanWriter {
	clear(sc.hdr)
	for k, vs := range stage {
		sc.hdr[k] = append([]string(nil), vs...)
	}
	sc.ctx.writer = leanWriter{lc: &sc.lc, req: r, cl: -1, closeAfter: r.Close, header: sc.hdr}
	return &sc.ctx.writer
}

// flush is what was written so far (valid until reset).
func (sc *loopScratch) flush() []byte {
	_ = sc.lc.bw.Flush()
	return sc.out.b
}

// reset empties out; a buffer grown past 1 MiB goes.
func (sc *loopScratch) reset() {
	sc.lc.bw.Reset(&sc.out)
	if cap(sc.out.b) > 1<<20 {
		sc.out.b = nil
	}
	sc.out.b = sc.out.b[:0]
}

// loopCtx is the context of the request the loop serves: its exchange,
// and whether the forwarder passed it on.
type loopCtx struct {
	lp     *httpLoop
	c      *loopClient
	ex     exchange.Exchange
	passed bool
	writer leanWriter
}

func (x *loopCtx) reset(c *loopClient) {
	x.c, x.passed = c, false
	x.ex = exchange.Exchange{Conn: c.id, Req: c.reqID, Timings: x.ex.Timings[:0]}
}

func (*loopCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done is nil: a request on the loop waits for nothing while its stages
// run (Config.Instant), so nothing ends it meanwhile.
func (*loopCtx) Done() <-chan struct{} { return nil }

func (*loopCtx) Err() error { return nil }

func (x *loopCtx) Value(key any) any {
	switch key.(type) {
	case exchange.Key:
		return &x.ex
	case exchange.ConnKey:
		return x.c.id
	}
	return nil
}

var _ context.Context = (*loopCtx)(nil)

// pass is the forwarder's step for a request on the loop: its head for
// the next hop is made now (the request is the scratch one), and the loop
// sends it once the chain has returned.
func (x *loopCtx) pass(r *http.Request) {
	x.passed = true
	x.c.upHead = x.lp.sc.lc.appendRequestHead(x.c.upHead[:0], r)
}
