package proxy

import (
	"net"
	"sync"

	"github.com/middlebench/middlebench/units"
	"golang.org/x/time/rate"
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

func (c *AcceptConfig) validate() error {
	switch {
	case c.Burst < 0:
		return errField("burst", "must not be negative")
	case c.Burst > 0 && c.Rate.IsZero():
		return errField("burst", "needs a rate")
	case c.Backlog < 0:
		return errField("backlog", "must not be negative")
	case c.Backlog > 0 && !backlogSupported:
		return errField("backlog", "a listen backlog needs Linux; use rate on this system")
	}
	return nil
}

type acceptStage struct {
	cfg AcceptConfig
	env *stageEnv
	c   *counters
	lim *rate.Limiter
}

func (c *AcceptConfig) build(env *stageEnv) (Stage, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &acceptStage{cfg: *c, env: env}
	s.c = newCounters("accept", env.index, "waits")
	env.c = s.c
	if !c.Rate.IsZero() {
		s.lim = rate.NewLimiter(rate.Limit(c.Rate.PerSecond()), max(c.Burst, 1))
	}
	return s, nil
}

func (s *acceptStage) Stats() StageStats { return s.c.stats() }

func (s *acceptStage) backlog() int { return s.cfg.Backlog }

func (s *acceptStage) WrapListener(l net.Listener) net.Listener {
	if s.lim == nil {
		return &countListener{Listener: l, c: s.c}
	}
	return &acceptListener{Listener: l, s: s, done: make(chan struct{})}
}

// countListener only counts (the backlog is set when the box listens).
type countListener struct {
	net.Listener
	c *counters
}

func (l *countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.c.seen.Add(1)
		l.c.passed.Add(1)
	}
	return c, err
}

// acceptListener takes a token before each accept(2).
type acceptListener struct {
	net.Listener
	s    *acceptStage
	done chan struct{}
	once sync.Once
}

func (l *acceptListener) Accept() (net.Conn, error) {
	now := l.s.env.clock.Now()
	r := l.s.lim.ReserveN(now, 1)
	held := r.DelayFrom(now)
	if held > 0 {
		l.s.c.inc(0, 1)
		t := l.s.env.clock.NewTimer(held)
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
	l.s.c.seen.Add(1)
	l.s.c.passed.Add(1)
	if held > 0 {
		l.s.c.addDelay(held)
		l.s.env.record(LedgerEntry{Conn: connID(c), Action: ActDelayed, AskedMs: ms(held), AppliedMs: ms(held),
			Note: "accept(2) held for a token; connections meanwhile wait in the kernel's queue"})
	}
	return c, nil
}

func (l *acceptListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
