package diagnose

import (
	"math"
	"strconv"
)

// Time buckets: an NDJSON or CSV stream is cut into buckets of at least
// Reader.Bucket (doubling when the run outgrows MaxBuckets, so memory stays
// bounded), and the buckets into steps where the load changes.

// bucketPhases are the phases a time bucket (and so a step) keeps a
// histogram of: those whose p95 the rules read per step (duration and waiting
// for every rule, sending and receiving for upload- and download-limited,
// the server's time, connecting for the accept queue's median dial and
// connect-slow's p95). The others keep count, sum, min and max only, which
// Stat.Tail reads as no distribution rather than a p95 of 0.
var bucketPhases = []phaseIndex{phDuration, phWaiting, phSending, phReceiving, phServer, phConnecting}

// bucket returns the time bucket of a point at t (unix ns), coarsening
// the buckets when the run outgrows MaxBuckets.
func (s *stream) bucket(t int64) *acc {
	if len(s.buckets) == 0 {
		s.t0 = t
	}
	idx := int64(0)
	if t > s.t0 {
		idx = (t - s.t0) / s.width
	}
	for idx >= int64(s.opt.MaxBuckets) {
		s.coarsen()
		idx = (t - s.t0) / s.width
	}
	for int64(len(s.buckets)) <= idx {
		s.buckets = append(s.buckets, newAcc(2, bucketPhases...))
	}
	return s.buckets[idx]
}

// coarsen doubles the bucket width, merging buckets pairwise.
func (s *stream) coarsen() {
	n := (len(s.buckets) + 1) / 2
	for i := range n {
		b := s.buckets[2*i]
		if 2*i+1 < len(s.buckets) {
			b.merge(s.buckets[2*i+1])
		}
		s.buckets[i] = b
	}
	clear(s.buckets[n:])
	s.buckets = s.buckets[:n]
	s.width *= 2
}

// open reports whether the stream is read as an open model: told so
// (Reader.Open), or it dropped iterations, which only arrival-rate
// executors do.
func (s *stream) open() bool {
	return s.opt.Open || s.all.dropped > 0 || !s.opt.Closed && (s.allocated() || s.fixedRateIdleVUs())
}

// fixedRateIdleVUs: iterations started at a fixed rate while most of the
// VUs allocated stayed idle (the busy VUs, k6's vus gauge, never reached
// half of vus_max). A closed model keeps every VU it allocated busy at
// its top stage; an arrival-rate executor runs as many VUs as its
// latency needs, so its VUs follow latency while its arrivals hold. The
// first and last buckets (a partial second, the drain) are left out.
func (s *stream) fixedRateIdleVUs() bool {
	if s.vusMax <= 0 || s.all.vusMax >= 0.5*s.vusMax || len(s.buckets) < 4 || s.all.starts == 0 {
		return false
	}
	inner := s.buckets[1 : len(s.buckets)-1]
	var sum, sq float64
	for _, b := range inner {
		v := float64(b.starts)
		sum += v
		sq += v * v
	}
	n := float64(len(inner))
	mean := sum / n
	if mean <= 0 {
		return false
	}
	cv := math.Sqrt(max(sq/n-mean*mean, 0)) / mean
	return cv <= fixedRateSpread
}

// fixedRateSpread: arrivals per bucket spread this little (coefficient of
// variation) are a fixed rate (k6's constant-arrival-rate at 15/s: ±7 %).
const fixedRateSpread = 0.15

// allocated reports whether k6 allocated VUs during the run (vus_max
// grew): an arrival-rate executor whose pre-allocated VUs were too few for
// its latency. A closed model's VUs are all allocated before it starts.
func (s *stream) allocated() bool { return s.vusMaxFirst >= 0 && s.vusMax > s.vusMaxFirst }

// arrivals returns the iterations that arrived in a: those started plus
// those dropped. k6 stamps iterations when they end, so starts come from
// iteration_duration (time − duration): counted at their end, arrivals lag
// and fall short while latency grows (seed 003 at 210/s read 199/s). But
// an iteration cut at the end of a run (gracefulStop: 0s) is never
// recorded, so the last moments lose their starts (E7's last second read
// 1,003/s of 1,200): where fewer iterations started than ended, the ends
// stand for the arrivals. A stream without iteration_duration has only
// the ends.
func (s *stream) arrivals(a *acc) int64 {
	return max(a.starts, a.iterations) + a.dropped
}

// steps cuts the time buckets into steps where the offered load changes
// by more than 10 % from the step's mean so far: VUs for a closed model,
// arrivals (iterations started plus dropped) per second for an open one.
// The mean, not the step's first bucket, because a generator short of CPU
// starts iterations late and in bursts: one bucket's arrivals stray by ±8 %
// (E7 at 1,000/s), and a first bucket that strays splits the step. A lone
// bucket that straddles a change between two longer steps is a transition
// and belongs to none. A run at one load is one step: then there is no
// sweep and steps returns nil.
//
// The end of the run is no step either: the drain after the last stage
// (see drain), and a lone partial last bucket after a longer step, too
// short to be a step and its load too noisy to compare. Both stay in the
// totals and the series; steps returns what it left out as tail (nil if
// nothing), for the reader to say so.
func (s *stream) steps() (steps []Step, tail *acc) {
	if s.sched != nil {
		return s.scheduledSteps()
	}
	if s.opt.Constant {
		return nil, nil
	}
	open := s.open()
	vus := s.bucketVUs()
	bs := s.buckets[:s.drain(open, vus)]
	if len(bs) < len(s.buckets) {
		tail = &acc{} // counts only: no histograms
		for _, b := range s.buckets[len(bs):] {
			tail.merge(b)
		}
	}
	if len(bs) < 2 {
		return nil, tail
	}
	type cut struct {
		a          *acc
		start, end int64
		load       float64 // mean of its buckets' loads
		n          int
	}
	var cuts []cut
	for i, b := range bs {
		start := s.t0 + int64(i)*s.width
		end := start + s.width
		if i == len(s.buckets)-1 {
			end = max(s.all.last, start+int64(1e6))
		}
		load := vus[i]
		if open {
			load = float64(s.arrivals(b)) / (float64(end-start) / 1e9)
		}
		if n := len(cuts); n > 0 && sameLoad(cuts[n-1].load, load) {
			c := &cuts[n-1]
			c.a.merge(b)
			c.end = end
			c.load = (c.load*float64(c.n) + load) / float64(c.n+1)
			c.n++
			continue
		}
		c := cut{a: newAcc(2, bucketPhases...), start: start, end: end, load: load, n: 1}
		c.a.merge(b)
		cuts = append(cuts, c)
	}
	if k := len(cuts) - 1; k > 0 && cuts[k].n == 1 && cuts[k-1].n > 1 && cuts[k].end-cuts[k].start < s.width {
		if tail == nil {
			tail = &acc{}
		}
		tail.merge(cuts[k].a)
		cuts = cuts[:k]
	}
	kept := cuts[:0:0]
	for i, c := range cuts {
		if i > 0 && i < len(cuts)-1 && c.n == 1 && cuts[i-1].n > 1 && cuts[i+1].n > 1 &&
			(c.load-cuts[i-1].load)*(cuts[i+1].load-c.load) > 0 {
			continue // a transition between two steps
		}
		kept = append(kept, c)
	}
	if len(kept) < 2 {
		return nil, tail
	}
	steps = make([]Step, len(kept))
	for i, c := range kept {
		startMs := float64(c.start-s.t0) / 1e6
		endMs := float64(c.end-s.t0) / 1e6
		w := c.a.window(max(endMs-startMs, 1) / 1000)
		if !open && w.VUs == 0 {
			w.VUs = c.load // its buckets had no vus point: the one carried in
		}
		if open {
			w.Rate = float64(s.arrivals(c.a)) / w.Seconds
		}
		steps[i] = Step{Name: stepName(startMs, endMs, w, open), StartMs: startMs, EndMs: endMs, Window: w}
	}
	return steps, tail
}

// scheduledSteps are the steps of Reader.Schedule, each with the load it
// was scheduled to offer (else as measured), and what fell in none.
func (s *stream) scheduledSteps() ([]Step, *acc) {
	open := s.open()
	steps := make([]Step, len(s.opt.Schedule))
	for i, sc := range s.opt.Schedule {
		a := s.sched[i]
		startMs, endMs := float64(sc.Start)/1e6, float64(sc.End)/1e6
		w := a.window((endMs - startMs) / 1000)
		switch {
		case open && sc.Rate > 0:
			w.Rate = sc.Rate
		case open:
			w.Rate = float64(s.arrivals(a)) / w.Seconds
		case sc.VUs > 0:
			w.VUs = sc.VUs
		}
		name := sc.Name
		if name == "" {
			name = stepName(startMs, endMs, w, open)
		}
		steps[i] = Step{Name: name, StartMs: startMs, EndMs: endMs, Window: w}
	}
	var tail *acc
	if t := s.sched[len(s.opt.Schedule)]; t.requests > 0 || t.iterations > 0 {
		tail = t
	}
	return steps, tail
}

// drain returns the index of the first time bucket of the run's drain:
// the iterations that finish after the last stage (k6's gracefulStop),
// which the built-in engine keeps out of every step. In a stream the drain
// is the trailing buckets where iterations ended but next to none arrived
// (started or dropped): at most 1 in 10, because a generator short of CPU
// starts the odd scheduled iteration late (E7: 1 start beside 84 ends
// after the last stage). A run cut at its end (gracefulStop: 0s) looks the
// same, as the iterations started in its last moments were never recorded:
// a closed model tells the two apart by its VUs, which fall in a drain as
// VUs finish (seed 003: 400, then 230 and 30) and hold in a cut run. An
// open model's arrivals cannot be measured there either way, so those
// buckets are no step. A stream without iteration_duration cannot tell
// starts from ends: it has no drain. len(s.buckets) means none.
func (s *stream) drain(open bool, vus []float64) int {
	n := len(s.buckets)
	if s.all.starts == 0 {
		return n
	}
	arrived := func(b *acc) bool { return 10*(b.starts+b.dropped) > b.iterations }
	last := n - 1 // the last bucket where iterations arrived
	for last > 0 && !arrived(s.buckets[last]) {
		last--
	}
	for n > 1 && n-1 > last {
		b := s.buckets[n-1]
		if !open && !(b.vusN > 0 && vus[n-1] < vus[last]) {
			break
		}
		n--
	}
	return n
}

// bucketVUs returns the mean of the vus gauge in each time bucket, a
// bucket without a point carrying the one before. k6 writes the gauge
// once a second from the end of the first: the buckets before its first
// point take that point's value (not known is not 0 VUs).
func (s *stream) bucketVUs() []float64 {
	out := make([]float64, len(s.buckets))
	v, first := 0.0, -1
	for i, b := range s.buckets {
		if b.vusN > 0 {
			v = b.vusSum / float64(b.vusN)
			if first < 0 {
				first = i
			}
		}
		out[i] = v
	}
	for i := 0; i < first; i++ {
		out[i] = out[first]
	}
	return out
}

func sameLoad(a, b float64) bool {
	if a == 0 || b == 0 {
		return a == b
	}
	return math.Abs(a-b) <= 0.1*a
}

func stepName(startMs, endMs float64, w Window, open bool) string {
	span := strconv.FormatFloat(startMs/1000, 'f', 0, 64) + "–" + strconv.FormatFloat(endMs/1000, 'f', 0, 64) + "s"
	if open {
		return span + " @" + strconv.FormatFloat(w.Rate, 'f', 0, 64) + "/s"
	}
	return span + " " + strconv.FormatFloat(w.VUs, 'f', 0, 64) + " VUs"
}

// series returns every time bucket as a step of its own: the run over time
// (at most MaxBuckets points), whether or not the load changed.
func (s *stream) series() []Step {
	open := s.open()
	out := make([]Step, 0, len(s.buckets))
	vusAt := s.bucketVUs()
	for i, b := range s.buckets {
		start := s.t0 + int64(i)*s.width
		end := start + s.width
		if i == len(s.buckets)-1 {
			end = max(s.all.last, start+int64(1e6))
		}
		startMs, endMs := float64(start-s.t0)/1e6, float64(end-s.t0)/1e6
		w := b.window((endMs - startMs) / 1000)
		w.VUs = vusAt[i]
		if open {
			w.Rate = float64(s.arrivals(b)) / w.Seconds
		}
		out = append(out, Step{Name: stepName(startMs, endMs, w, open), StartMs: startMs, EndMs: endMs, Window: w})
	}
	return out
}
