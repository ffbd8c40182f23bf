package load

import (
	"math"
	"time"
)

// vuChange is a point of a ramping-vus schedule: from At on, VUs are planned.
type vuChange struct {
	At  time.Duration
	VUs int
}

// vuSchedule turns start VUs and stages into the times at which the
// planned number of VUs changes, with k6's arithmetic
// (lib/executor/ramping_vus.go getRawExecutionSteps, unsegmented): going
// up from a to b over d, VU number v starts at stageStart + d·(v−a)/(b−a);
// going down, the count drops from u to u−1 at stageEnd − d·(u−b−1)/(a−b),
// so the last VU of a ramp-down stops at the stage's end. A zero-length
// stage jumps at its end.
func vuSchedule(startVUs int, stages []Stage) []vuChange {
	out := []vuChange{{0, startVUs}}
	add := func(at time.Duration, n int) {
		if out[len(out)-1].VUs != n {
			out = append(out, vuChange{at, n})
		}
	}
	from := int64(startVUs)
	var end time.Duration
	for _, s := range stages {
		to := int64(s.Target)
		d := s.Duration.D()
		end += d
		diff := to - from
		switch {
		case diff == 0:
		case d == 0:
			add(end, int(to))
		case diff > 0:
			for v := from + 1; v <= to; v++ {
				add(end-time.Duration(int64(d)*(to-v)/diff), int(v))
			}
		default:
			for u := from; u > to; u-- {
				add(end-time.Duration(int64(d)*(to-u+1)/diff), int(u-1))
			}
		}
		from = to
	}
	return out
}

// pacer says when the i-th arrival (0-based) of an open model starts,
// relative to the run's start, and false once the schedule is over. It is
// a pure function of i: the scheduler compares it with the clock, and tests
// read it without sleeping.
type pacer interface {
	at(i int64) (time.Duration, bool)
}

// constantPacer is constant-arrival-rate: arrival i at i·(per/n), the first
// at 0, as long as that is before the duration (k6's ticker loop).
type constantPacer struct {
	n        float64 // arrivals per `per`
	per      time.Duration
	duration time.Duration
}

func (p constantPacer) at(i int64) (time.Duration, bool) {
	if p.n <= 0 {
		return 0, false
	}
	t := time.Duration(math.Floor(float64(i) * float64(p.per) / p.n))
	return t, t < p.duration
}

// rampingPacer is ramping-arrival-rate: the rate goes linearly from each
// stage's start rate to its target, and arrival i (0-based) starts when the
// area under the rate reaches i+1, with k6's formula (lib/executor/
// ramping_arrival_rate.go cal): inside a ramp from r0 to r1 over d, the
// k-th arrival of the stage is at (r0·d − √(d·(r0²·d + 2k(r1−r0))))/(r0−r1).
type rampingPacer struct {
	stages []rateStage
}

type rateStage struct {
	start, dur     float64 // ns
	from, to       float64 // arrivals per ns
	before, within float64 // arrivals before the stage, and in it
}

func newRampingPacer(startRate float64, unit time.Duration, stages []Stage) rampingPacer {
	var p rampingPacer
	from := startRate / float64(unit)
	var start, done float64
	for _, s := range stages {
		to := s.Target / float64(unit)
		d := float64(s.Duration.D())
		within := d * ((to-from)/2 + from)
		p.stages = append(p.stages, rateStage{start: start, dur: d, from: from, to: to, before: done, within: within})
		done += within
		start += d
		from = to
	}
	return p
}

func (p rampingPacer) at(i int64) (time.Duration, bool) {
	k := float64(i + 1)
	for _, s := range p.stages {
		if k > s.before+s.within {
			continue
		}
		x := k - s.before
		var off float64
		if s.from != s.to {
			off = (s.from*s.dur - math.Sqrt(math.Max(0, s.dur*(s.from*s.from*s.dur+2*x*(s.to-s.from))))) / (s.from - s.to)
		} else {
			off = x / s.to
		}
		return time.Duration(s.start + off), true
	}
	return 0, false
}
