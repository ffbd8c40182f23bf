package proxy

import (
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"golang.org/x/time/rate"
)

// BudgetConfig is a box's own load budget, not a device of any path it
// models: it paces the requests through the box to Rate and holds at most
// InFlight of them at once, making the excess wait its turn rather than
// answering it, so that a load that is rejected as fast as it comes (a
// blocked tool, a rate limiter's 429s) costs the machine Rate requests per
// second instead of tens of thousands. A request that would wait longer
// than MaxWait is answered 503 at once. A mystery puts one in front of its
// puzzle's HTTP stages and reports what it held apart from the puzzle.
//
// With ConnRate instead, the budget works on new connections (a byte box
// can have it): accept(2) is called at most ConnRate times a second, the
// kernel holding the rest, so that handshakes the box or the next one
// would do are paced too.
type BudgetConfig struct {
	Rate      units.Rate     `yaml:"rate"`      // requests per second through the box
	Burst     int            `yaml:"burst"`     // requests let through at once after a pause (default: a tenth of a second's worth, at least 1)
	InFlight  int            `yaml:"inFlight"`  // requests at once (0: no cap)
	MaxWait   units.Duration `yaml:"maxWait"`   // the longest a request waits for its turn (default 5s)
	ConnRate  units.Rate     `yaml:"connRate"`  // new connections accepted per second (instead of the request fields)
	ConnBurst int            `yaml:"connBurst"` // connections accepted at once after a pause (default: a tenth of a second's worth, at least 1)
}

// Kind is "budget".
func (*BudgetConfig) Kind() string { return "budget" }

func (c *BudgetConfig) compile() (Stage, error) {
	if !c.ConnRate.IsZero() || c.ConnBurst != 0 {
		return c.compileConns()
	}
	switch {
	case c.Rate.IsZero():
		return nil, errField("rate", "required and above 0, e.g. 600/s (or connRate, for new connections)")
	case c.Burst < 0:
		return nil, errField("burst", "must not be negative")
	case c.InFlight < 0:
		return nil, errField("inFlight", "must not be negative")
	case c.MaxWait < 0:
		return nil, errField("maxWait", "must not be negative")
	}
	burst := c.Burst
	if burst == 0 {
		burst = max(1, int(c.Rate.PerSecond()/10))
	}
	s := &budgetStage{cfg: *c, lim: rate.NewLimiter(rate.Limit(c.Rate.PerSecond()), burst), maxWait: time.Duration(c.MaxWait)}
	if s.maxWait == 0 {
		s.maxWait = 5 * time.Second
	}
	if c.InFlight > 0 {
		s.slots = make(chan struct{}, c.InFlight)
	}
	return s, nil
}

type budgetStage struct {
	bound
	cfg     BudgetConfig
	lim     *rate.Limiter
	slots   chan struct{} // nil: no cap on requests at once
	maxWait time.Duration

	held atomic.Int64 // requests that waited for their turn
}

func (s *budgetStage) extraCounts() map[string]int64 {
	return map[string]int64{"held": s.held.Load()}
}

// instant: a token is there and a slot free, so the request goes on at
// once. Another request may take them between this answer and the
// handler; that one then waits one token's interval on the loop's
// goroutine, which the pace bounds.
func (s *budgetStage) instant(*http.Request) bool {
	return s.lim.TokensAt(s.env.clock.Now()) >= 1 && (s.slots == nil || len(s.slots) < cap(s.slots))
}

func (s *budgetStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		start := s.env.clock.Now()
		res := s.lim.ReserveN(start, 1)
		pace := res.DelayFrom(start)
		if pace > s.maxWait {
			res.CancelAt(start)
			s.refuse(w, r, "over the box's load budget: the wait for a turn would exceed maxWait")
			return
		}
		if _, err := s.env.wait(r.Context(), pace); err != nil {
			return // the client left while it waited
		}
		if !s.acquire(r, start) {
			if r.Context().Err() == nil {
				s.refuse(w, r, "over the box's load budget: no room among the requests at once within maxWait")
			}
			return
		}
		defer s.release()
		if held := s.env.clock.Now().Sub(start); held > 0 && (pace > 0 || s.slots != nil && held >= time.Millisecond) {
			s.held.Add(1)
			s.c.addDelay(held)
			ex := exchange.From(r.Context())
			ex.AddTiming("budget", held)
			s.env.record(LedgerEntry{Conn: ex.Conn, Req: ex.Req, Action: ActDelayed, AskedMs: timing.Millis(held), AppliedMs: timing.Millis(held),
				Note: "the box's own load budget held it for its turn"})
		}
		s.c.passed.Add(1)
		next.ServeHTTP(w, r)
	})
}

// acquire takes a slot among the requests at once, waiting at most what
// is left of maxWait since start.
func (s *budgetStage) acquire(r *http.Request, start time.Time) bool {
	if s.slots == nil {
		return true
	}
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	t := s.env.clock.NewTimer(s.maxWait - s.env.clock.Now().Sub(start))
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C():
		return false
	case <-r.Context().Done():
		return false
	}
}

func (s *budgetStage) release() {
	if s.slots != nil {
		<-s.slots
	}
}

func (s *budgetStage) refuse(w http.ResponseWriter, r *http.Request, why string) {
	s.c.reject(http.StatusServiceUnavailable)
	ex := exchange.From(r.Context())
	s.env.record(LedgerEntry{Conn: ex.Conn, Req: ex.Req, Action: ActRejected, Status: http.StatusServiceUnavailable, Note: why})
	reply(w, http.StatusServiceUnavailable, "middlebench budget: "+why+"\n")
}

func (c *BudgetConfig) compileConns() (Stage, error) {
	switch {
	case c.ConnRate.IsZero():
		return nil, errField("connBurst", "needs connRate")
	case !c.Rate.IsZero() || c.Burst != 0 || c.InFlight != 0 || c.MaxWait != 0:
		return nil, errField("connRate", "a budget works on requests (rate, burst, inFlight, maxWait) or on new connections (connRate, connBurst): use two stages")
	case c.ConnBurst < 0:
		return nil, errField("connBurst", "must not be negative")
	}
	burst := c.ConnBurst
	if burst == 0 {
		burst = max(1, int(c.ConnRate.PerSecond()/10))
	}
	return &budgetConnStage{lim: rate.NewLimiter(rate.Limit(c.ConnRate.PerSecond()), burst)}, nil
}

// budgetConnStage paces accept(2), as the accept stage does, but as the
// box's own budget rather than a device of the path.
type budgetConnStage struct {
	bound
	lim  *rate.Limiter
	held atomic.Int64
}

func (s *budgetConnStage) extraCounts() map[string]int64 {
	return map[string]int64{"held": s.held.Load()}
}

func (s *budgetConnStage) WrapListener(l net.Listener) net.Listener {
	return &pacedListener{Listener: l, b: &s.bound, lim: s.lim, held: &s.held, done: make(chan struct{}),
		note: "the box's own load budget held accept(2) for its turn"}
}
