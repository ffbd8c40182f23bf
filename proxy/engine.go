package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/forward"
	"github.com/middlebench/middlebench/proxy/internal/h1loop"
	"github.com/middlebench/middlebench/proxy/internal/relay"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// A box forwards through one of two engines, chosen once from its stages
// (Box.mode): its connections' bytes, or its HTTP requests. box.go starts
// one and stops it; what each holds is here, its pieces in proxy/internal
// (relay and forward for bytes; h1loop, upstream for HTTP). What an engine
// needs of its box it is handed when it starts: for HTTP, h1loop.Config.

// bytesEngine is a byte box's: every connection pair carried on the
// relay, or by two copy goroutines.
type bytesEngine struct {
	relay *relay.Relay   // byte forwarding between plain sockets
	pairs *forward.Pairs // … and, on the relay or two goroutines, every pair
}

// httpEngine is an HTTP box's: the forwarder behind its stages, and the
// loops in front of them.
type httpEngine struct {
	srv   *http.Server
	rp    http.Handler
	inner http.Handler   // the stages and the forwarder
	h1    *h1loop.Engine // the forwarder, and a plain-HTTP box's loops
	loops bool           // … which run
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
	b.h1 = h1loop.New(h1loop.Config{Next: b.next, MaxIdle: b.cfg.MaxIdleConnsPerHost, OwnProcess: b.ownProcess, Log: b.log,
		Limits: h1loop.Limits{ReadHeader: b.limits.ReadHeaderTimeout.D(), Read: b.limits.ReadTimeout.D(),
			ResponseHeader: b.limits.ResponseHeaderTimeout.D()},
		ReqSeq: &b.reqSeq, ServerTiming: b.ledgerHeader, Desc: b.desc,
		Handle: b.handle, Instant: b.instant, ProxyError: b.proxyError, WatchResponse: b.watchResponse,
		Cut: b.cut, BadRequest: b.badRequest, ClientGone: func() { b.clientAborts.Add(1) },
		Conns: boxConns{b}, WG: &b.wg}, rp, rp.Transport)
	var h http.Handler = b.h1.Forwarder()
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
		IdleTimeout:       h1loop.IdleTimeout,
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
		b.loops = true
		ln = b.h1.Start(b.wrapped.Addr(), b.next.Scheme == "http" && b.instantStages() && !b.cfg.noLoop)
		b.wg.Add(1)
		go b.acceptLoop(b.h1.Serve)
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

// instant reports whether every HTTP stage decides r at once: the HTTP
// loop then runs the chain on its own goroutine.
func (b *Box) instant(r *http.Request) bool {
	for _, st := range b.lay.https {
		if is, ok := st.(instantStage); !ok || !is.instant(r) {
			return false
		}
	}
	return true
}

// leanable reports whether an HTTP box can run the lean loop: it does not
// terminate TLS (its connections would need ALPN and HTTP/2), and its next
// hop has no path of its own to join.
func (b *Box) leanable() bool {
	return b.lay.certs == nil && (b.next.Path == "" || b.next.Path == "/") && b.next.RawQuery == ""
}

// boxConns is the box's account of its open connections, as the HTTP
// loops see it (h1loop.Conns).
type boxConns struct{ b *Box }

func (c boxConns) Untrack(conn net.Conn) { c.b.untrack(conn) }

func (c boxConns) WhileOpen(f func()) bool {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.b.closed {
		return false
	}
	f()
	return true
}

// stopAccepting closes what takes the box's connections: net/http's
// server, the box's listener.
func (b *Box) stopAccepting() error {
	var err error
	if b.srv != nil {
		err = b.srv.Close()
	}
	if b.srv == nil || b.loops {
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
	if b.h1 != nil {
		b.h1.Stop() // … and so are the HTTP loop's
	}
	if rp, ok := b.rp.(*upstream.Proxy); ok {
		rp.Close()
	}
}
