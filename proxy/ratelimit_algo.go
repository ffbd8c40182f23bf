package proxy

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// decision is a limiter's answer for one request.
type decision struct {
	ok        bool
	remaining int64         // requests left in the current window / bucket
	reset     time.Duration // until the window resets or a token is back
}

// limiter is one key's rate-limit state; allow is a pure function of its
// state and now, so that it is tested exactly on a fake clock.
type limiter interface {
	allow(now time.Time) decision
}

// fixedWindow counts per window aligned on the wall clock (Unix epoch
// multiples of the window: for 1 s, each wall-clock second), as the
// article's device: passed = Σ over windows of min(arrivals, limit).
type fixedWindow struct {
	mu     sync.Mutex
	window int64 // ns
	limit  int64
	index  int64
	count  int64
}

func (f *fixedWindow) allow(now time.Time) decision {
	t := now.UnixNano()
	idx := floorDiv(t, f.window)
	reset := time.Duration((idx+1)*f.window - t)
	f.mu.Lock()
	defer f.mu.Unlock()
	if idx != f.index {
		f.index, f.count = idx, 0
	}
	if f.count < f.limit {
		f.count++
		return decision{ok: true, remaining: f.limit - f.count, reset: reset}
	}
	return decision{remaining: 0, reset: reset}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}

// slidingWindow is an exact sliding log: a request passes when fewer than
// limit requests passed in (now − window, now]. It keeps the last limit
// pass times in a ring.
type slidingWindow struct {
	mu     sync.Mutex
	window time.Duration
	ring   []time.Time
	head   int // oldest
	n      int
}

func newSlidingWindow(limit int64, window time.Duration) *slidingWindow {
	return &slidingWindow{window: window, ring: make([]time.Time, limit)}
}

func (s *slidingWindow) allow(now time.Time) decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit := len(s.ring)
	// Forget passes that left the window.
	for s.n > 0 && !s.ring[s.head].Add(s.window).After(now) {
		s.head = (s.head + 1) % limit
		s.n--
	}
	if s.n < limit {
		s.ring[(s.head+s.n)%limit] = now
		s.n++
		return decision{ok: true, remaining: int64(limit - s.n), reset: s.ring[s.head].Add(s.window).Sub(now)}
	}
	return decision{reset: s.ring[s.head].Add(s.window).Sub(now)}
}

// tokenBucket is golang.org/x/time/rate's limiter with an explicit now.
type tokenBucket struct {
	lim *rate.Limiter
}

func (b *tokenBucket) allow(now time.Time) decision {
	if b.lim.AllowN(now, 1) {
		return decision{ok: true, remaining: int64(math.Floor(b.lim.TokensAt(now)))}
	}
	missing := 1 - b.lim.TokensAt(now)
	return decision{reset: time.Duration(missing / float64(b.lim.Limit()) * float64(time.Second))}
}
