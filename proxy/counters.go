package proxy

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// StageStats is one stage's counters, as the admin endpoint, the harness
// and the results document's "stages" show them. Times are in ms.
type StageStats struct {
	Index    int                `json:"index"` // 1-based position in the box
	Kind     string             `json:"kind"`
	Seen     int64              `json:"seen"`   // connections or requests that reached the stage
	Passed   int64              `json:"passed"` // … and went on
	Rejected map[string]int64   `json:"rejected,omitempty"`
	Delay    map[string]float64 `json:"delay,omitempty"`  // time the stage added (ms): avg, min, med, max, p(90), p(95), p(99), count
	Queued   map[string]float64 `json:"queued,omitempty"` // time spent waiting for capacity (ms)
	Bytes    int64              `json:"bytes,omitempty"`  // bytes shaped or delayed
	Extra    map[string]int64   `json:"extra,omitempty"`  // kind-specific counts (handshakes, resumed, resets …)
	// Histograms are the exact delay and queue histograms (timing.Trend
	// encoding), so that runs can be merged.
	Histograms map[string]string `json:"histograms,omitempty"`
}

// RejectedTotal sums Rejected.
func (s StageStats) RejectedTotal() int64 {
	var n int64
	for _, v := range s.Rejected {
		n += v
	}
	return n
}

// counters is a stage's live counters: atomics on the request path, a
// per-stage lock only around the histograms.
type counters struct {
	kind   string
	index  int
	seen   atomic.Int64
	passed atomic.Int64
	bytes  atomic.Int64
	status [600]atomic.Int64 // rejected, by HTTP status; 0 = connection reset or closed

	mu     sync.Mutex
	delay  *timing.Trend
	queued *timing.Trend
}

// newCounters makes a stage's counters; the box calls it with the stage's
// kind and place, so no stage can forget to.
func newCounters(kind string, index int) *counters {
	return &counters{kind: kind, index: index, delay: timing.NewTrend(), queued: timing.NewTrend()}
}

func (c *counters) reject(status int) {
	if status < 0 || status >= len(c.status) {
		status = 0
	}
	c.status[status].Add(1)
}

func (c *counters) addDelay(d time.Duration) {
	c.mu.Lock()
	c.delay.Add(d)
	c.mu.Unlock()
}

func (c *counters) addQueued(d time.Duration) {
	c.mu.Lock()
	c.queued.Add(d)
	c.mu.Unlock()
}

func (c *counters) stats() StageStats {
	s := StageStats{Index: c.index, Kind: c.kind, Seen: c.seen.Load(), Passed: c.passed.Load(), Bytes: c.bytes.Load()}
	for code := range c.status {
		if n := c.status[code].Load(); n > 0 {
			if s.Rejected == nil {
				s.Rejected = map[string]int64{}
			}
			key := strconv.Itoa(code)
			if code == 0 {
				key = "reset"
			}
			s.Rejected[key] = n
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s.Delay = trendStats(c.delay)
	s.Queued = trendStats(c.queued)
	for name, t := range map[string]*timing.Trend{"delay": c.delay, "queued": c.queued} {
		if t.Count() == 0 {
			continue
		}
		if enc, err := t.Encode(); err == nil {
			if s.Histograms == nil {
				s.Histograms = map[string]string{}
			}
			s.Histograms[name] = enc
		}
	}
	return s
}

func trendStats(t *timing.Trend) map[string]float64 {
	if t.Count() == 0 {
		return nil
	}
	v, err := t.Values(append(timing.FullTrendStats(), "count"))
	if err != nil {
		return nil // cannot happen: the stat names are fixed
	}
	return v
}
