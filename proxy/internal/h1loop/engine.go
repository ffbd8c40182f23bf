package h1loop

import (
	"log"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// Config is what the loops need of the box they serve: its next hop and
// limits (values), its handler chain and the forwarder's two hooks, its
// counting and recording (funcs: the counters and the ledger stay the
// box's), and its account of open connections.
type Config struct {
	Next       *url.URL
	Limits     Limits
	MaxIdle    int  // idle connections the event loop keeps to the next hop (0: 1024)
	OwnProcess bool // the box's path is its process's only work (epoll.NewSet)
	Log        *log.Logger
	ReqSeq     *atomic.Uint64 // the box's request ids
	// ServerTiming: answers carry the stages' Server-Timing entries,
	// described as Desc (the box's name).
	ServerTiming bool
	Desc         string

	// Handle runs one request through the box's handler chain (the stages,
	// then Forwarder), counted.
	Handle func(w http.ResponseWriter, r *http.Request, ex *exchange.Exchange)
	// Instant reports whether every stage decides r at once: the event
	// loop then runs the chain on its own goroutine.
	Instant func(r *http.Request) bool
	// ProxyError answers a forward that failed (502, 504, 400, client
	// gone); WatchResponse counts a body the next hop cuts on net/http's
	// path. Both are the standard forwarder's hooks too.
	ProxyError    func(w http.ResponseWriter, r *http.Request, err error)
	WatchResponse func(resp *http.Response) error
	// Cut counts and records an answer's body the next hop ended early;
	// BadRequest a request refused (status) before the stages saw it;
	// ClientGone counts a client that left mid-exchange.
	Cut        func(ex *exchange.Exchange, note string)
	BadRequest func(ex *exchange.Exchange, status int, note string)
	ClientGone func()

	Conns Conns
	WG    *sync.WaitGroup // the box's: each connection served holds one
}

// Limits are the box's bounds on slow clients and a slow next hop.
type Limits struct {
	ReadHeader     time.Duration // a request's head
	Read           time.Duration // a whole request
	ResponseHeader time.Duration // the next hop's first answer byte
}

// Conns is the box's account of its open connections, which it closes
// when it stops.
type Conns interface {
	// Untrack: the connection is no longer the box's to close.
	Untrack(c net.Conn)
	// WhileOpen runs f under the account's lock unless the box is
	// closing; false: not run.
	WhileOpen(f func()) bool
}

// IdleTimeout is how long a client connection may sit idle between
// requests (net/http's server, where a connection is handed over, keeps
// the same).
const IdleTimeout = 2 * time.Minute

// Engine is an HTTP box's forwarding: the forwarder at the end of its
// handler chain, and, for a plain-HTTP box, the lean loop and the event
// loop in front of the chain.
type Engine struct {
	cfg     Config
	fwd     *forwardHandler
	loop    *httpLoop        // the event loop (Linux; nil: none)
	handoff *handoffListener // connections given to net/http
	waits   waitList         // … and the lean loop's requests waiting for the next hop
	date    dateCache
}

// New makes an engine whose forwarder sends on through rp (ReverseProxy,
// for what the lean forwarder leaves) and tr (its keep-alive transport).
func New(cfg Config, rp http.Handler, tr *upstream.Transport) *Engine {
	e := &Engine{cfg: cfg}
	e.fwd = &forwardHandler{e: e, rp: rp, tr: tr}
	return e
}

// Forwarder ends the box's handler chain.
func (e *Engine) Forwarder() http.Handler { return e.fwd }

// Start runs the lean loop, and with eventLoop the event loop in front of
// it, on the connections Serve is given; net/http's server serves the
// returned listener, where the loops hand over what they do not serve
// themselves (addr: the box's).
func (e *Engine) Start(addr net.Addr, eventLoop bool) net.Listener {
	e.handoff = newHandoffListener(addr)
	e.waits = waitList{done: e.handoff.done, wg: e.cfg.WG}
	if eventLoop {
		e.loop = newHTTPLoop(e)
	}
	return e.handoff
}

// Serve serves an accepted connection, counted in the box's WaitGroup: on
// the event loop when it takes it, else on the lean loop.
func (e *Engine) Serve(c net.Conn) {
	if e.loop != nil && e.loop.take(c) {
		return
	}
	e.serveLean(c)
}

// Stop stops the event loop, whose sockets are its own (closing the box's
// connections ends none).
func (e *Engine) Stop() {
	if e.loop != nil {
		e.loop.Stop()
	}
}

// EventLoop reports whether the event loop runs.
func (e *Engine) EventLoop() bool { return e.loop != nil }

// LoopCounts are, once the engine has stopped, the requests the event
// loop answered or forwarded itself and the connections it handed to the
// lean loop (zero without one).
func (e *Engine) LoopCounts() (served, handed int64) {
	if e.loop == nil {
		return 0, 0
	}
	return e.loop.served, e.loop.handed
}

// WaitsInPoller reports whether the event loop waits in the runtime's
// poller rather than blocking in epoll_wait (false: none runs yet).
func (e *Engine) WaitsInPoller() bool { return e.loop.inPoller() }
