package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/middlebench/middlebench/proxy/internal/exchange"

	"github.com/middlebench/middlebench/proxy/internal/forward"
	"github.com/middlebench/middlebench/proxy/internal/relay"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// A box forwards through one of two engines, chosen once from its stages
// (Box.mode): its connections' bytes, or its HTTP requests. box.go starts
// one and stops it; what each holds is here, its pieces in proxy/internal
// and, for HTTP, the loops' files (httploop_linux.go, loop*_linux.go,
// lean*.go).

// bytesEngine is a byte box's: every connection pair carried on the
// relay, or by two copy goroutines.
type bytesEngine struct {
	relay *relay.Relay   // byte forwarding between plain sockets
	pairs *forward.Pairs // … and, on the relay or two goroutines, every pair
}

// httpEngine is an HTTP box's: the forwarder behind its stages, and the
// loops in front of them.
type httpEngine struct {
	srv     *http.Server
	rp      http.Handler
	inner   http.Handler     // the stages and the forwarder
	fwd     *forwardHandler  // … the forwarder
	loop    *httpLoop        // the event loop of a plain-HTTP box's connections (Linux; nil: none)
	handoff *handoffListener // on the lean loop: connections given to srv
	waits   waitList         // … and their requests waiting for the next hop
	date    dateCache
}

// startBytes serves the box's connections as bytes: each on a goroutine
// of its own (forward), its pair carried on the relay or by two copy
// goroutines.
func (b *Box) startBytes() {
	b.relay = relay.New(&b.bytesUp, &b.bytesDown, b.ownProcess)
	b.pairs = &forward.Pairs{Relay: b.relay, Up: &b.bytesUp, Down: &b.bytesDown, Ends: connEnds{}}
	b.wg.Add(1)
	go b.acceptLoop(b.forward)
}

// startHTTP builds the forwarder, wraps the stages around it, and serves
// the box's connections on whichever loop takes them: the HTTP loop, the
// lean loop, net/http's server.
func (b *Box) startHTTP() {
	rp := upstream.NewProxy(upstream.ProxyConfig{Next: b.next, TLS: b.nextTLS, MaxIdle: b.cfg.MaxIdleConnsPerHost,
		HeaderTimeout: b.limits.ResponseHeaderTimeout.D(), ErrorHandler: b.proxyError, ModifyResponse: b.watchResponse, ErrorLog: b.log})
	b.rp = rp
	b.fwd = &forwardHandler{b: b, rp: rp, tr: rp.Transport}
	var h http.Handler = b.fwd
	for i := len(b.lay.https) - 1; i >= 0; i-- {
		h = b.lay.https[i].Wrap(h)
	}
	b.inner = h
	b.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, _ := r.Context().Value(exchange.ConnKey{}).(uint64)
			ex := &exchange.Exchange{Conn: id, Req: b.reqSeq.Add(1)}
			if r.Trailer == nil && len(r.TransferEncoding) > 0 {
				// net/http sets the trailers it reads at the body's end on
				// this request; a map the copies below share lets the body's
				// watch see them (checkTrailer).
				r.Trailer = http.Header{}
			}
			b.handle(w, r.WithContext(context.WithValue(r.Context(), exchange.Key{}, ex)), ex)
		}),
		ReadHeaderTimeout: b.limits.ReadHeaderTimeout.D(),
		ReadTimeout:       b.limits.ReadTimeout.D(),
		IdleTimeout:       idleTimeoutClient,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          b.log,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, exchange.ConnKey{}, exchange.ConnID(c))
		},
	}
	// The lean loop takes the connections and hands net/http those it
	// does not serve itself; a TLS box stays on net/http throughout.
	ln := b.wrapped
	if b.leanable() {
		b.handoff = newHandoffListener(b.wrapped.Addr())
		b.waits = waitList{done: b.handoff.done, wg: &b.wg}
		ln = b.handoff
		if b.next.Scheme == "http" && b.instantStages() && !b.cfg.noLoop {
			b.loop = newHTTPLoop(b)
		}
		b.wg.Add(1)
		go b.acceptLoop(b.serveHTTPConn)
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		if err := b.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			b.log.Printf("serve: %v", err)
		}
	}()
}

// instantStages reports whether every HTTP stage of the box may decide a
// request at once (instantStage): the HTTP loop is worth its while.
func (b *Box) instantStages() bool {
	for _, st := range b.lay.https {
		if _, ok := st.(instantStage); !ok {
			return false
		}
	}
	return true
}

// serveHTTPConn serves an accepted connection of a plain-HTTP box: on the
// HTTP loop when it takes it, else on the lean loop.
func (b *Box) serveHTTPConn(c net.Conn) {
	if b.loop != nil && b.loop.take(c) {
		return
	}
	b.serveLean(c)
}

// stopAccepting closes what takes the box's connections: net/http's
// server, the box's listener.
func (b *Box) stopAccepting() error {
	var err error
	if b.srv != nil {
		err = b.srv.Close()
	}
	if b.srv == nil || b.handoff != nil {
		if cerr := b.wrapped.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// stopEngine stops what the engine holds of its own, once the box's
// connections are closed.
func (b *Box) stopEngine() {
	if b.relay != nil {
		b.relay.Stop() // its pairs' sockets are its own: closing conns ends none
	}
	if b.loop != nil {
		b.loop.Stop() // … and so are the HTTP loop's
	}
	if rp, ok := b.rp.(*upstream.Proxy); ok {
		rp.Close()
	}
}
