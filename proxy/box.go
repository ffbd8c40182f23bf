package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// Box modes.
const (
	ModeBytes = "bytes" // connection stages only: bytes are forwarded, HTTP is not parsed
	ModeHTTP  = "http"  // at least one HTTP stage: each request is parsed once and proxied
)

// Box is one running middlebox.
type Box struct {
	name     string
	cfg      BoxConfig
	mode     string
	lay      *layout      // the compiled stages and their abilities
	counters []*counters  // one per stage, made from its kind
	ln       net.Listener // raw listener
	wrapped  net.Listener // after the connection stages
	url      *url.URL
	next     *url.URL
	nextTLS  *tls.Config // for dialing the next hop when it speaks TLS
	pool     *x509.CertPool
	ledger   *ledger
	log      *log.Logger
	desc     string // the box's name for Server-Timing
	// ledgerHeader: answers carry the stages' Server-Timing entries.
	ledgerHeader bool
	// ownProcess: the box's path is its process's only work (its loops
	// may block in epoll_wait: epoll.Set.Wait).
	ownProcess bool

	limits BoxLimits // with the defaults filled in

	connSeq, reqSeq                  atomic.Uint64
	accepted, active, requests       atomic.Int64
	upstreamErrors, clientAborts     atomic.Int64
	upstreamTimeouts, upstreamCuts   atomic.Int64
	badRequests, capWaits            atomic.Int64
	bytesUp, bytesDown, acceptErrors atomic.Int64

	// The forwarding engine, one of the two (engine.go).
	bytesEngine
	httpEngine

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // open client connections of the bytes and lean loops
	closed bool
	wg     sync.WaitGroup
}

// BoxStats is one box's counters and its stages'.
type BoxStats struct {
	Name           string `json:"name"`
	Listen         string `json:"listen"`
	URL            string `json:"url"`
	Next           string `json:"next"`
	Mode           string `json:"mode"`
	Accepted       int64  `json:"connectionsAccepted"`
	Active         int64  `json:"connectionsActive"`
	Requests       int64  `json:"requests,omitempty"`
	UpstreamErrors int64  `json:"upstreamErrors"` // 502s answered (HTTP) or upstream dials failed (bytes)
	// UpstreamTimeouts: 504s, the next hop not answering within
	// responseHeaderTimeout. UpstreamCuts: responses whose body the next
	// hop ended early (fewer bytes than announced, a reset mid-body): the
	// client's connection was aborted, as Envoy and net/http do. In a byte
	// box: connections the next hop reset (the client's is reset in turn).
	UpstreamTimeouts int64 `json:"upstreamTimeouts"`
	UpstreamCuts     int64 `json:"upstreamCuts"`
	ClientAborts     int64 `json:"clientAborts"` // clients gone before their exchange finished
	// BadRequests: requests whose body could not be read (broken chunked
	// framing: 400; too slow: 408). CapWaits: times the box stopped
	// accepting at maxConns.
	BadRequests int64        `json:"badRequests"`
	CapWaits    int64        `json:"capWaits"`
	BytesUp     int64        `json:"bytesUp,omitempty"`
	BytesDown   int64        `json:"bytesDown,omitempty"`
	Stages      []StageStats `json:"stages"`
}

// boxEnv is what a box needs from its path.
type boxEnv struct {
	index        int
	seed         uint64
	clock        clock.Clock
	ledgerHeader bool
	ledgerLimit  int
	sink         *jsonlSink
	log          io.Writer
	ownProcess   bool // PathConfig.OwnProcess
	// listenIn, if set, runs the listener's creation (in the wire's server
	// namespace, on listenAddr instead of the configured address).
	listenIn   func(func() error) error
	listenAddr string
}

func startBox(cfg BoxConfig, env boxEnv, next *url.URL, nextTLS *tls.Config, nextPool *x509.CertPool) (*Box, error) {
	name := cfg.displayName(env.index)
	lay, err := compileStages(cfg.Stages)
	if err != nil {
		return nil, fmt.Errorf("box %q: %w", name, err)
	}
	b := &Box{name: name, cfg: cfg, next: next, nextTLS: nextTLS, mode: ModeBytes, lay: lay, ownProcess: env.ownProcess,
		ledger: newLedger(env.ledgerLimit, env.sink), conns: map[net.Conn]struct{}{}, limits: cfg.BoxLimits.withDefaults(BoxLimits{})}
	lw := env.log
	if lw == nil {
		lw = io.Discard
	}
	b.log = log.New(lw, "box "+name+": ", 0)
	if len(lay.https) > 0 {
		b.mode = ModeHTTP
	}
	for i, st := range lay.stages {
		c := newCounters(cfg.Stages[i].Spec.Kind(), i+1)
		se := &stageEnv{box: name, index: i + 1, clock: env.clock, seed: stageSeed(env.seed, name, i+1), ledger: b.ledger, c: c}
		st.setEnv(se)
		if s, ok := st.(starter); ok {
			if err := s.start(); err != nil {
				return nil, fmt.Errorf("box %q, stage %d (%s): %w", name, i+1, c.kind, err)
			}
		}
		b.counters = append(b.counters, c)
	}
	addr := cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	listen := func() (err error) {
		if lay.backlog > 0 {
			b.ln, err = socket.ListenBacklog(addr, lay.backlog)
		} else {
			b.ln, err = net.Listen("tcp", addr)
		}
		return err
	}
	if env.listenIn != nil {
		addr = env.listenAddr
		err = env.listenIn(listen)
	} else {
		err = listen()
	}
	if err != nil {
		return nil, fmt.Errorf("box %q: listen: %w", name, err)
	}
	var ln net.Listener = newTrackListener(b.ln, b, b.limits.MaxConns)
	for _, ls := range lay.listeners {
		ln = ls.WrapListener(ln)
	}
	b.wrapped = &stagedListener{Listener: ln, stages: lay.conns}
	b.url = &url.URL{Scheme: "http", Host: b.ln.Addr().String()}
	switch {
	case lay.certs != nil:
		b.url.Scheme, b.pool = "https", lay.certs.CertPool()
	case b.mode == ModeBytes:
		b.url.Scheme, b.pool = next.Scheme, nextPool // TLS, if any, passes through
	}
	b.ledgerHeader = env.ledgerHeader
	b.desc = strings.ReplaceAll(b.name, `"`, "'")
	if b.mode == ModeHTTP {
		b.startHTTP()
	} else {
		b.startBytes()
	}
	return b, nil
}

// stagedListener passes every accepted connection through the box's
// connection stages, in path order.
type stagedListener struct {
	net.Listener
	stages []ConnStage
}

func (l *stagedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for _, s := range l.stages {
		c = s.WrapConn(c)
	}
	return c, nil
}

// handle runs one request, on either path, through the box's handler chain.
func (b *Box) handle(w http.ResponseWriter, r *http.Request, ex *exchange.Exchange) {
	b.requests.Add(1)
	ex.WatchBody(r)
	if b.ledgerHeader {
		w = &exchange.TimingWriter{ResponseWriter: w, Ex: ex, Desc: b.desc}
	}
	ex.Serve(b.inner, w, r)
}

// Name is the box's name.
func (b *Box) Name() string { return b.name }

// Addr is the box's listening address (127.0.0.1:port).
func (b *Box) Addr() string { return b.ln.Addr().String() }

// URL is how a client reaches the box: https when it terminates TLS or
// passes TLS through to a box that does.
func (b *Box) URL() string { return b.url.String() }

// Mode is ModeBytes or ModeHTTP.
func (b *Box) Mode() string { return b.mode }

// Stats returns a snapshot of the box's counters.
func (b *Box) Stats() BoxStats {
	s := BoxStats{Name: b.name, Listen: b.Addr(), URL: b.URL(), Next: b.next.String(), Mode: b.mode,
		Accepted: b.accepted.Load(), Active: b.active.Load(), Requests: b.requests.Load(),
		UpstreamErrors: b.upstreamErrors.Load(), ClientAborts: b.clientAborts.Load(),
		UpstreamTimeouts: b.upstreamTimeouts.Load(), UpstreamCuts: b.upstreamCuts.Load(),
		BadRequests: b.badRequests.Load(), CapWaits: b.capWaits.Load(),
		BytesUp: b.bytesUp.Load(), BytesDown: b.bytesDown.Load()}
	for i, c := range b.counters {
		st := c.stats()
		if x, ok := b.lay.stages[i].(extraCounter); ok {
			st.Extra = x.extraCounts()
		}
		s.Stages = append(s.Stages, st)
	}
	return s
}

// Summary is the box's one-line account, printed at shutdown.
func (b *Box) Summary() string {
	s := b.Stats()
	var sb strings.Builder
	fmt.Fprintf(&sb, "box %s %s → %s (%s): %d conns", s.Name, s.Listen, s.Next, s.Mode, s.Accepted)
	if s.Mode == ModeHTTP {
		fmt.Fprintf(&sb, ", %d requests", s.Requests)
	}
	if s.UpstreamErrors > 0 {
		fmt.Fprintf(&sb, ", %d upstream errors", s.UpstreamErrors)
	}
	if s.UpstreamTimeouts > 0 {
		fmt.Fprintf(&sb, ", %d upstream timeouts", s.UpstreamTimeouts)
	}
	if s.UpstreamCuts > 0 {
		fmt.Fprintf(&sb, ", %d responses cut upstream", s.UpstreamCuts)
	}
	for _, st := range s.Stages {
		fmt.Fprintf(&sb, "; %s: seen %d passed %d", st.Kind, st.Seen, st.Passed)
		for _, k := range slices.Sorted(maps.Keys(st.Rejected)) {
			fmt.Fprintf(&sb, " %s×%d", k, st.Rejected[k])
		}
		if st.Delay != nil {
			fmt.Fprintf(&sb, " delay p50 %.1fms p99 %.1fms", st.Delay["med"], st.Delay["p(99)"])
		}
		if st.Queued != nil {
			fmt.Fprintf(&sb, " queued p99 %.1fms", st.Queued["p(99)"])
		}
		if st.Bytes > 0 {
			fmt.Fprintf(&sb, " %d bytes", st.Bytes)
		}
	}
	return sb.String()
}

// close stops the box: the listener first, then every connection.
func (b *Box) close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	conns := make([]net.Conn, 0, len(b.conns))
	for c := range b.conns {
		conns = append(conns, c)
	}
	b.mu.Unlock()
	err := b.stopAccepting()
	for _, c := range conns {
		c.Close()
	}
	b.stopEngine()
	for _, st := range b.lay.stages {
		if c, ok := st.(io.Closer); ok {
			c.Close()
		}
	}
	b.wg.Wait()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("box %q: close: %w", b.name, err)
	}
	return nil
}
