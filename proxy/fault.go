package proxy

import (
	"math"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sync/atomic"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// FaultConfig injects faults Envoy-style, each with its own probability
// (percent), optionally only for requests whose path matches one of Paths
// and whose headers match every Headers entry: a connection reset (RST),
// an abort with a status, an extra delay.
//
// Spread "random" (the default, Envoy's way) draws each request's faults;
// "even" spaces them so that after n matching requests exactly
// floor(n × percent / 100) had each fault: a short run then shows the
// configured share rather than a draw's luck (70 % of 4 requests held
// none one time in 123).
type FaultConfig struct {
	ResetPercent float64           `yaml:"resetPercent"`
	AbortStatus  int               `yaml:"abortStatus"` // default 503
	AbortPercent float64           `yaml:"abortPercent"`
	AbortBody    string            `yaml:"abortBody"`
	Delay        units.Dist        `yaml:"delay"`
	DelayPercent float64           `yaml:"delayPercent"`
	Paths        []string          `yaml:"paths"`   // regular expressions on the path
	Headers      map[string]string `yaml:"headers"` // header name → regular expression on its value
	Spread       string            `yaml:"spread"`  // random (default) or even
}

// Kind is "fault".
func (*FaultConfig) Kind() string { return "fault" }

type faultStage struct {
	bound
	cfg     FaultConfig
	paths   []*regexp.Regexp
	headers map[string]*regexp.Regexp
	abort   rejection

	resets, aborts, delays atomic.Int64
	// even spread: matching requests so far, one count per fault
	evenResets, evenAborts, evenDelays evenShare
}

func (c *FaultConfig) compile() (Stage, error) {
	for _, p := range []struct {
		f string
		v float64
	}{{"resetPercent", c.ResetPercent}, {"abortPercent", c.AbortPercent}, {"delayPercent", c.DelayPercent}} {
		if err := checkPercent(p.f, p.v); err != nil {
			return nil, err
		}
	}
	if c.DelayPercent > 0 && c.Delay.IsZero() {
		return nil, errField("delay", "delayPercent is set but delay is 0")
	}
	switch c.Spread {
	case "", "random", "even":
	default:
		return nil, errField("spread", "%q: want random or even", c.Spread)
	}
	if err := checkStatus("abortStatus", c.AbortStatus); err != nil {
		return nil, err
	}
	paths, err := compileAll("paths", c.Paths)
	if err != nil {
		return nil, err
	}
	s := &faultStage{cfg: *c, paths: paths, headers: map[string]*regexp.Regexp{},
		abort: newRejection(c.AbortStatus, c.AbortBody, http.StatusServiceUnavailable, "middlebench fault: injected abort\n")}
	for name, expr := range c.Headers {
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, errField("headers", "%s %q: %v", name, expr, err)
		}
		s.headers[http.CanonicalHeaderKey(name)] = re
	}
	return s, nil
}

func (s *faultStage) extraCounts() map[string]int64 {
	return map[string]int64{"resets": s.resets.Load(), "aborts": s.aborts.Load(), "delays": s.delays.Load()}
}

func (s *faultStage) matches(r *http.Request) bool {
	if len(s.paths) > 0 {
		hit := false
		for _, re := range s.paths {
			if re.MatchString(r.URL.Path) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	for name, re := range s.headers {
		if !re.MatchString(r.Header.Get(name)) {
			return false
		}
	}
	return true
}

// active: the stage may act on a request.
func (s *faultStage) active() bool {
	return s.cfg.ResetPercent > 0 || s.cfg.AbortPercent > 0 || s.cfg.DelayPercent > 0
}

// instant: a request the stage leaves alone, or may only abort with a
// status, is decided at once; one it may delay or reset is not.
func (s *faultStage) instant(r *http.Request) bool {
	return !s.active() || s.cfg.ResetPercent == 0 && s.cfg.DelayPercent == 0 || !s.matches(r)
}

func (s *faultStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		if !s.active() || !s.matches(r) {
			s.c.passed.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		ex := exchange.From(r.Context())
		rng := s.env.rng(ex.Req)
		reset, abort, delay := s.draw(rng)
		entry := LedgerEntry{Conn: ex.Conn, Req: ex.Req}
		switch {
		case reset:
			s.resets.Add(1)
			s.c.reject(0)
			entry.Action = ActReset
			s.env.record(entry)
			resetConn(w)
			return
		case abort:
			s.aborts.Add(1)
			s.c.reject(s.abort.status)
			entry.Action, entry.Status = ActRejected, s.abort.status
			s.env.record(entry)
			s.abort.send(w)
			return
		}
		if delay {
			asked := s.cfg.Delay.Sample(rng)
			applied, err := s.env.wait(r.Context(), asked)
			s.delays.Add(1)
			s.c.addDelay(applied)
			ex.AddTiming("fault", applied)
			entry.Action, entry.AskedMs, entry.AppliedMs = ActDelayed, timing.Millis(asked), timing.Millis(applied)
			if err != nil {
				s.env.recordClientGone(r, entry, err)
				return
			}
			s.env.record(entry)
		}
		s.c.passed.Add(1)
		next.ServeHTTP(w, r)
	})
}

// draw decides which faults a matching request gets. Random draws all
// three each time, so one fault's probability does not shift the others'
// draws; even counts the request once for each fault.
func (s *faultStage) draw(rng *rand.Rand) (reset, abort, delay bool) {
	if s.cfg.Spread == "even" {
		return s.evenResets.next(s.cfg.ResetPercent), s.evenAborts.next(s.cfg.AbortPercent),
			s.evenDelays.next(s.cfg.DelayPercent)
	}
	uReset, uAbort, uDelay := rng.Float64()*100, rng.Float64()*100, rng.Float64()*100
	return uReset < s.cfg.ResetPercent, uAbort < s.cfg.AbortPercent, uDelay < s.cfg.DelayPercent
}

// evenShare counts requests and picks the n-th when floor(n × percent /
// 100) steps up, so exactly that many of the first n are picked whatever
// the concurrency.
type evenShare struct{ n atomic.Int64 }

func (e *evenShare) next(percent float64) bool {
	if percent <= 0 {
		return false
	}
	n := float64(e.n.Add(1))
	return math.Floor(n*percent/100) > math.Floor((n-1)*percent/100)
}

// resetConn takes the connection from net/http and resets it.
func resetConn(w http.ResponseWriter) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // cannot hijack: abort the response instead
	}
	abortConn(c)
}
