package proxy

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// AcceptConfig limits new connections like a firewall or load balancer
// that admits Rate connections per second, or a server with no room to
// accept: the box calls accept(2) only when a token is there, and with a
// small listen Backlog the kernel's accept queue fills and further SYNs are
// dropped, so clients retransmit (1 s, then 3 s …) and see
// http_req_connecting grow.
//
// Backlog needs Linux (listen(2) on a raw socket; the kernel keeps backlog+1
// completed connections and drops SYNs beyond, with tcp_abort_on_overflow=0,
// the default). macOS honours the backlog too (capped by
// kern.ipc.somaxconn) and also drops; Windows answers a full queue with a
// reset (connection refused) instead. On other systems the box refuses a
// backlog rather than silently ignore it; Rate works everywhere.
type AcceptConfig struct {
	Rate    units.Rate `yaml:"rate"`    // accepted connections per period (0: no limit)
	Burst   int        `yaml:"burst"`   // tokens saved up while idle (default 1)
	Backlog int        `yaml:"backlog"` // listen(2) backlog (0: the system's default, somaxconn)
}

// Kind is "accept".
func (*AcceptConfig) Kind() string { return "accept" }

type acceptStage struct {
	bound
	cfg   AcceptConfig
	lim   *rate.Limiter // nil: no rate, the stage only counts
	waits atomic.Int64  // accepts held for a token
}

func (c *AcceptConfig) compile() (Stage, error) {
	switch {
	case c.Burst < 0:
		return nil, errField("burst", "must not be negative")
	case c.Burst > 0 && c.Rate.IsZero():
		return nil, errField("burst", "needs a rate")
	case c.Backlog < 0:
		return nil, errField("backlog", "must not be negative")
	case c.Backlog > 0 && !socket.BacklogSupported:
		return nil, errField("backlog", "a listen backlog needs Linux; use rate on this system")
	}
	s := &acceptStage{cfg: *c}
	if !c.Rate.IsZero() {
		s.lim = rate.NewLimiter(rate.Limit(c.Rate.PerSecond()), max(c.Burst, 1))
	}
	return s, nil
}

// Backlog is the listen(2) backlog the box listens with.
func (s *acceptStage) Backlog() int { return s.cfg.Backlog }

// FirstBecause: the stage works on what reaches the listener.
func (s *acceptStage) FirstBecause() string { return "limits what the listener accepts" }

func (s *acceptStage) extraCounts() map[string]int64 {
	return map[string]int64{"waits": s.waits.Load()}
}

func (s *acceptStage) WrapListener(l net.Listener) net.Listener {
	return &pacedListener{Listener: l, b: &s.bound, lim: s.lim, held: &s.waits, done: make(chan struct{}),
		note: "accept(2) held for a token; connections meanwhile wait in the kernel's queue"}
}

// pacedListener takes a token (when there is a limiter) before each
// accept(2), and counts: the accept stage's and a connection budget's.
type pacedListener struct {
	net.Listener
	b    *bound
	lim  *rate.Limiter // nil: no rate, it only counts
	held *atomic.Int64 // accepts held for a token
	note string        // the ledger's note for a held accept
	done chan struct{}
	once sync.Once
}

func (l *pacedListener) Accept() (net.Conn, error) {
	var held time.Duration
	if l.lim != nil {
		now := l.b.env.clock.Now()
		held = l.lim.ReserveN(now, 1).DelayFrom(now)
	}
	if held > 0 {
		l.held.Add(1)
		t := l.b.env.clock.NewTimer(held)
		select {
		case <-t.C():
		case <-l.done:
			t.Stop()
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.b.c.seen.Add(1)
	l.b.c.passed.Add(1)
	if held > 0 {
		l.b.c.addDelay(held)
		l.b.env.record(LedgerEntry{Conn: exchange.ConnID(c), Action: ActDelayed, AskedMs: timing.Millis(held), AppliedMs: timing.Millis(held), Note: l.note})
	}
	return c, nil
}

func (l *pacedListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
