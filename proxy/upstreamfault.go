package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/reqbody"
)

// What goes wrong on either side of an HTTP box, and how the box answers,
// counts and records it (stage "box" in the ledger, index 0):
//
//	client's body broken (bad chunk size)   400  badRequests       bad-request
//	client's body too slow (readTimeout)    408  badRequests       bad-request
//	client gone                             —    clientAborts      (none)
//	next hop closed, reset, sent garbage    502  upstreamErrors    bad-gateway
//	next hop silent (responseHeaderTimeout) 504  upstreamTimeouts  gateway-timeout
//	next hop ended a body early             cut  upstreamCuts      cut
//
// A cut body cannot be answered any more: the client's connection is
// aborted, so that the client sees an error rather than a short body
// (Envoy and net/http's ReverseProxy do the same).

// Box-level ledger actions.
const (
	ActBadRequest     = "bad-request"
	ActBadGateway     = "bad-gateway"
	ActGatewayTimeout = "gateway-timeout"
	ActCut            = "cut"
)

// clientBody is a request body as the box reads it from its client: it
// remembers its first error, so that a failed forward can tell a client's
// fault from the next hop's (net/http hides the body's error behind an
// unexported type).
type clientBody struct {
	io.ReadCloser
	req *http.Request // its Trailer, filled by net/http at the body's end
	err atomic.Pointer[error]
}

func (c *clientBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if err == io.EOF && c.req != nil {
		err = checkTrailer(c.req.Trailer)
		if err == nil {
			err = io.EOF
		}
	}
	if err != nil && err != io.EOF {
		c.err.CompareAndSwap(nil, &err)
	}
	return n, err
}

// checkTrailer refuses a request trailer that names a framing field (RFC
// 9110 §6.5.1; net/http's server refuses such a declared Trailer, 400):
// the client's error, answered 400, where forwarding it failed as the next
// hop's (502).
func checkTrailer(tr http.Header) error {
	for _, k := range [...]string{"Content-Length", "Transfer-Encoding", "Trailer", "Host"} {
		if _, ok := tr[k]; ok {
			return fmt.Errorf("a trailer field named %s", k)
		}
	}
	return nil
}

func (c *clientBody) failure() error {
	if c == nil {
		return nil
	}
	if e := c.err.Load(); e != nil {
		return *e
	}
	return nil
}

// watchClientBody wraps r's body, if any, and keeps it on the exchange.
func watchClientBody(r *http.Request, ex *exchange) {
	if r.Body != nil && r.Body != http.NoBody {
		ex.body = &clientBody{ReadCloser: r.Body, req: r}
		r.Body = ex.body
	}
}

// record writes a box-level ledger entry for the exchange.
func (b *Box) record(ex *exchange, action string, status int, note string) {
	e := LedgerEntry{Time: time.Now(), Box: b.name, Stage: "box", Action: action, Status: status, Note: note}
	if ex != nil {
		e.Conn, e.Req = ex.conn, ex.req
	}
	b.ledger.add(e)
}

// proxyError answers a forward that failed: see the table above.
func (b *Box) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	var bodyErr error
	if ex != nil {
		bodyErr = ex.body.failure()
	}
	if bodyErr != nil || r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		status, msg := reqbody.StatusClientGone, ""
		if bodyErr != nil {
			status, msg = reqbody.Status(r.Context(), bodyErr)
		}
		if status == reqbody.StatusClientGone {
			b.clientAborts.Add(1)
			if ex != nil {
				ex.abort = true // answered by aborting the connection (serveExchange)
			}
			return
		}
		b.badRequests.Add(1)
		b.record(ex, ActBadRequest, status, msg)
		w.Header().Set("Connection", "close") // the body's framing is lost
		w.Header().Set("X-Middlebench-Box", b.name)
		http.Error(w, fmt.Sprintf("middlebench box %q: %s", b.name, msg), status)
		return
	}
	status, action, what := http.StatusBadGateway, ActBadGateway, "bad gateway"
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		status, action, what = http.StatusGatewayTimeout, ActGatewayTimeout, "gateway timeout"
		b.upstreamTimeouts.Add(1)
	} else {
		b.upstreamErrors.Add(1)
	}
	note := fmt.Sprintf("next hop %s: %v", b.next, err)
	b.record(ex, action, status, note)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Middlebench-Box", b.name)
	w.WriteHeader(status)
	fmt.Fprintf(w, "middlebench box %q: %s: %s\n", b.name, what, note)
}

// watchResponse is the reverse proxy's ModifyResponse: it counts a body
// the next hop ends early.
func (b *Box) watchResponse(resp *http.Response) error {
	// A 101's body is the upgraded connection, which ReverseProxy splices
	// only as an io.ReadWriteCloser: it is not wrapped.
	if resp.Body != nil && resp.Body != http.NoBody && resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Body = &cutWatch{ReadCloser: resp.Body, b: b, req: resp.Request, announced: resp.ContentLength}
	}
	return nil
}

// cutWatch counts and records, once, a response body whose read failed
// while the client was still there.
type cutWatch struct {
	io.ReadCloser
	b         *Box
	req       *http.Request
	announced int64
	got       int64
	done      bool
}

func (c *cutWatch) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.got += int64(n)
	if err != nil && err != io.EOF && !c.done && c.req.Context().Err() == nil {
		c.done = true
		c.b.upstreamCuts.Add(1)
		ex, _ := c.req.Context().Value(exchangeKey{}).(*exchange)
		of := ""
		if c.announced >= 0 {
			of = fmt.Sprintf(" of %d announced", c.announced)
		}
		c.b.record(ex, ActCut, 0, fmt.Sprintf("the next hop ended the body after %d bytes%s (%v): the client's connection was aborted", c.got, of, err))
	}
	return n, err
}

// answerWriter notes whether the box has begun an answer.
type answerWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *answerWriter) WriteHeader(code int) {
	w.wrote = w.wrote || code >= 200 || code == http.StatusSwitchingProtocols
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveExchange runs the box's handler chain on one request. A request the
// chain gave up on because its client left — nothing written — is not
// answered at all: the connection is aborted (nginx's 499 is a log entry,
// not a response). Without this net/http would answer an empty 200, which
// a client that only half-closed its side would read as success.
func serveExchange(h http.Handler, w http.ResponseWriter, r *http.Request, ex *exchange) {
	aw := &ex.answer // in the exchange's allocation
	*aw = answerWriter{ResponseWriter: w}
	h.ServeHTTP(aw, r)
	if !aw.wrote && (ex.abort || r.Context().Err() != nil) {
		panic(http.ErrAbortHandler)
	}
}
