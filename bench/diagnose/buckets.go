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

// steps cuts the time buckets into steps where the offered load changes
// by more than 10 %: VUs for a closed model, arrivals (iterations started
// plus dropped) per second for an open one. A lone bucket that straddles a
// change between two longer steps is a transition and belongs to none. A
// run at one load is one step: then there is no sweep and steps returns nil.
func (s *stream) steps() []Step {
	if len(s.buckets) < 2 {
		return nil
	}
	open := s.all.dropped > 0
	type cut struct {
		a          *acc
		start, end int64
		load       float64
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
			load = float64(b.iterations+b.dropped) / (float64(end-start) / 1e9)
		}
		if n := len(cuts); n > 0 && sameLoad(cuts[n-1].load, load) {
			cuts[n-1].a.merge(b)
			cuts[n-1].end = end
			cuts[n-1].n++
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
			w.Rate = float64(c.a.iterations+c.a.dropped) / w.Seconds
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
	open := s.all.dropped > 0
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
			w.Rate = float64(b.iterations+b.dropped) / w.Seconds
		}
		out = append(out, Step{Name: stepName(startMs, endMs, w, open), StartMs: startMs, EndMs: endMs, Window: w})
	}
	return out
}
