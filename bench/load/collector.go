package load

import (
	"sort"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// stepAgg aggregates one step of the run (the whole run when it is not a
// sweep). Trends are allocated when their first value arrives.
type stepAgg struct {
	trends                                        [numTrends]*timing.Trend
	reqs, iters, interrupted, dropped, sent, recv int64
	failed                                        metrics.Rate
	vus, vusMax                                   metrics.Gauge
	statuses                                      map[int]int64
	errors                                        [numClasses]int64
	codes                                         map[uint16]int64
	subs                                          []subAgg
	maxSkew                                       int64 // max |duration − wall| over requests, ns
	lastEnd                                       int64
}

type subAgg struct {
	trend *timing.Trend
	count int64
	rate  metrics.Rate
}

func newStepAgg(nsubs int) *stepAgg {
	return &stepAgg{statuses: map[int]int64{}, codes: map[uint16]int64{}, subs: make([]subAgg, nsubs)}
}

func (a *stepAgg) trend(i int) *timing.Trend {
	if a.trends[i] == nil {
		a.trends[i] = timing.NewTrend()
	}
	return a.trends[i]
}

// collector owns every aggregate; records reach it in batches from the
// VUs, so it alone writes them and needs no lock.
type collector struct {
	pool   *batches
	bounds []int64 // end of each step, ns since base; the aggregate after the last is the run's tail
	steps  []*stepAgg
	subs   []*submetric
	out    *jsonOutput
	abort  *aborter   // nil: no threshold aborts the run
	scens  []*stepAgg // per scenario, when the run has several (k6's SCENARIO sections)
}

func newCollector(pool *batches, bounds []int64, subs []*submetric, out *jsonOutput) *collector {
	c := &collector{pool: pool, bounds: bounds, subs: subs, out: out}
	for range len(bounds) + 1 {
		c.steps = append(c.steps, newStepAgg(len(subs)))
	}
	return c
}

func (c *collector) run(in <-chan *batch) {
	for b := range in {
		for i := range b.recs {
			c.add(&b.recs[i])
		}
		if c.out != nil {
			c.out.write(b.recs)
		}
		c.pool.put(b)
		if now := time.Now(); c.abort.due(now) {
			c.abort.check(c.snapshot(now), now)
		}
	}
}

func (c *collector) step(end int64) *stepAgg {
	if len(c.bounds) == 0 {
		return c.steps[0]
	}
	return c.steps[sort.Search(len(c.bounds), func(i int) bool { return end < c.bounds[i] })]
}

// perScenario keeps an aggregate per scenario besides the steps.
func (c *collector) perScenario(n int) {
	if n < 2 {
		return
	}
	for range n {
		c.scens = append(c.scens, newStepAgg(len(c.subs)))
	}
}

func (c *collector) add(r *record) {
	c.addTo(c.step(r.end), r)
	if c.scens != nil && r.kind != kindGauge { // the VU gauges are the run's, not a scenario's
		c.addTo(c.scens[r.scen], r)
	}
}

func (c *collector) addTo(a *stepAgg, r *record) {
	a.lastEnd = max(a.lastEnd, r.end)
	switch r.kind {
	case kindRequest:
		a.reqs++
		for i := tBlocked; i <= tDuration; i++ {
			a.trend(i).Add(time.Duration(requestTrend(r, i)))
		}
		if r.hasServer {
			a.trend(tServer).Add(time.Duration(r.server))
		}
		if r.hasQueue {
			a.trend(tServerQueue).Add(time.Duration(r.queue))
		}
		a.failed.Add(r.failed)
		if r.status > 0 {
			a.statuses[int(r.status)]++
		} else {
			a.errors[r.class]++
		}
		if r.code > 0 {
			a.codes[r.code]++
		}
		if skew := r.ph.dur - r.ph.wall; skew > a.maxSkew || -skew > a.maxSkew {
			a.maxSkew = max(skew, -skew)
		}
		for i, s := range c.subs {
			if !s.match(r) {
				continue
			}
			sa := &a.subs[i]
			switch {
			case s.trend >= 0:
				if sa.trend == nil {
					sa.trend = timing.NewTrend()
				}
				sa.trend.Add(time.Duration(requestTrend(r, s.trend)))
			case s.parent == mHTTPFailed:
				sa.rate.Add(r.failed)
			default:
				sa.count++
			}
		}
	case kindIteration:
		a.sent += r.sent
		a.recv += r.recv
		if r.interrupted {
			a.interrupted++
			return
		}
		a.iters++
		a.trend(tIteration).Add(time.Duration(r.iterDur))
	case kindDropped:
		a.dropped++
	case kindGauge:
		a.vus.Set(float64(r.vus))
		a.vusMax.Set(float64(r.vusMax))
	}
}

// total merges every step into one aggregate (a new one: steps stay).
func (c *collector) total() *stepAgg {
	if len(c.steps) == 1 {
		return c.steps[0]
	}
	t := newStepAgg(len(c.subs))
	for _, a := range c.steps {
		t.merge(a)
	}
	return t
}

func (a *stepAgg) merge(o *stepAgg) {
	for i, tr := range o.trends {
		if tr != nil {
			a.trend(i).Merge(tr)
		}
	}
	a.reqs += o.reqs
	a.iters += o.iters
	a.interrupted += o.interrupted
	a.dropped += o.dropped
	a.sent += o.sent
	a.recv += o.recv
	a.failed.Merge(o.failed)
	a.vus.Merge(o.vus)
	a.vusMax.Merge(o.vusMax)
	for k, v := range o.statuses {
		a.statuses[k] += v
	}
	for k, v := range o.codes {
		a.codes[k] += v
	}
	for i := range o.errors {
		a.errors[i] += o.errors[i]
	}
	for i := range o.subs {
		if o.subs[i].trend != nil {
			if a.subs[i].trend == nil {
				a.subs[i].trend = timing.NewTrend()
			}
			a.subs[i].trend.Merge(o.subs[i].trend)
		}
		a.subs[i].count += o.subs[i].count
		a.subs[i].rate.Merge(o.subs[i].rate)
	}
	a.maxSkew = max(a.maxSkew, o.maxSkew)
	a.lastEnd = max(a.lastEnd, o.lastEnd)
}

// snapshot renders what was measured so far, for thresholds evaluated
// while the run lasts.
func (c *collector) snapshot(now time.Time) *metrics.Document {
	d := &metrics.Document{}
	d.Metrics, d.Histograms = renderAgg(c.total(), c.subs, now.Sub(c.abort.start).Seconds(), timing.FullTrendStats(), true, nil)
	return d
}
