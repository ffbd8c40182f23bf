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
// the server's time). The others keep count, sum, min and max only, which
// Stat.Tail reads as no distribution rather than a p95 of 0.
var bucketPhases = []phaseIndex{phDuration, phWaiting, phSending, phReceiving, phServer}

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
func (s *stream) open() bool { return s.opt.Open || s.all.dropped > 0 }

// arrivals returns the iterations that arrived in a: those started plus
// those dropped. k6 stamps iterations when they end, so starts come from
// iteration_duration (time − duration); a stream without it falls back to
// the iterations that ended.
func (s *stream) arrivals(a *acc) int64 {
	if s.all.starts > 0 {
		return a.starts + a.dropped
	}
	return a.iterations + a.dropped
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
func (s *stream) steps() []Step {
	if len(s.buckets) < 2 {
		return nil
	}
	open := s.open()
	type cut struct {
		a          *acc
		start, end int64
		load       float64 // mean of its buckets' loads
		n          int
	}
	var cuts []cut
	lastVUs := 0.0
	for i, b := range s.buckets {
		start := s.t0 + int64(i)*s.width
		end := start + s.width
		if i == len(s.buckets)-1 {
			end = max(s.all.last, start+int64(1e6))
		}
		load := lastVUs
		if b.vusN > 0 {
			load = b.vusSum / float64(b.vusN)
			lastVUs = load
		}
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
	kept := cuts[:0:0]
	for i, c := range cuts {
		if i > 0 && i < len(cuts)-1 && c.n == 1 && cuts[i-1].n > 1 && cuts[i+1].n > 1 &&
			(c.load-cuts[i-1].load)*(cuts[i+1].load-c.load) > 0 {
			continue // a transition between two steps
		}
		kept = append(kept, c)
	}
	if len(kept) < 2 {
		return nil
	}
	steps := make([]Step, len(kept))
	for i, c := range kept {
		startMs := float64(c.start-s.t0) / 1e6
		endMs := float64(c.end-s.t0) / 1e6
		w := c.a.window(max(endMs-startMs, 1) / 1000)
		if open {
			w.Rate = float64(s.arrivals(c.a)) / w.Seconds
		}
		steps[i] = Step{Name: stepName(startMs, endMs, w, open), StartMs: startMs, EndMs: endMs, Window: w}
	}
	return steps
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
	vus := 0.0
	for i, b := range s.buckets {
		start := s.t0 + int64(i)*s.width
		end := start + s.width
		if i == len(s.buckets)-1 {
			end = max(s.all.last, start+int64(1e6))
		}
		startMs, endMs := float64(start-s.t0)/1e6, float64(end-s.t0)/1e6
		w := b.window((endMs - startMs) / 1000)
		if b.vusN > 0 {
			vus = w.VUs
		}
		w.VUs = vus
		if open {
			w.Rate = float64(s.arrivals(b)) / w.Seconds
		}
		out = append(out, Step{Name: stepName(startMs, endMs, w, open), StartMs: startMs, EndMs: endMs, Window: w})
	}
	return out
}
