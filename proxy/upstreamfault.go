package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/middlebench/middlebench/internal/reqbody"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
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

// record writes a box-level ledger entry for the exchange.
func (b *Box) record(ex *exchange.Exchange, action string, status int, note string) {
	e := LedgerEntry{Time: time.Now(), Box: b.name, Stage: "box", Action: action, Status: status, Note: note}
	if ex != nil {
		e.Conn, e.Req = ex.Conn, ex.Req
	}
	b.ledger.add(e)
}

// proxyError answers a forward that failed: see the table above.
func (b *Box) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	ex, _ := r.Context().Value(exchange.Key{}).(*exchange.Exchange)
	var bodyErr error
	if ex != nil {
		bodyErr = ex.BodyErr()
	}
	if bodyErr != nil || r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		status, msg := reqbody.StatusClientGone, ""
		if bodyErr != nil {
			status, msg = reqbody.Status(r.Context(), bodyErr)
		}
		if status == reqbody.StatusClientGone {
			b.clientAborts.Add(1)
			if ex != nil {
				ex.Abort = true // answered by aborting the connection (exchange.Exchange.Serve)
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
		ex, _ := c.req.Context().Value(exchange.Key{}).(*exchange.Exchange)
		of := ""
		if c.announced >= 0 {
			of = fmt.Sprintf(" of %d announced", c.announced)
		}
		c.b.record(ex, ActCut, 0, fmt.Sprintf("the next hop ended the body after %d bytes%s (%v): the client's connection was aborted", c.got, of, err))
	}
	return n, err
}

// cut counts and records an answer's body the next hop ended early (the
// HTTP loops' cut; cutWatch is net/http's).
func (b *Box) cut(ex *exchange.Exchange, note string) {
	b.upstreamCuts.Add(1)
	b.record(ex, ActCut, 0, note)
}

// badRequest counts and records a request the box refused.
func (b *Box) badRequest(ex *exchange.Exchange, status int, note string) {
	b.badRequests.Add(1)
	b.record(ex, ActBadRequest, status, note)
}
