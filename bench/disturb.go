package bench

import (
	"fmt"
	"math"
	"time"
)

// A shared machine lends an experiment's CPUs to other work: then a phase
// measures the queue for a CPU as well as what the experiment configured,
// and a band can fail although the claim holds. The harness measures, over
// every run and every step of a sweep, what processes outside the
// experiment took of the CPUs it uses (everything busy on them less the CPU
// of this process and its descendants: the serving child, k6, generator
// children) and what the hypervisor stole. A check that fails while that
// share is at least busyThreshold is re-measured, up to maxAttempts in all;
// if every attempt was disturbed, the verdict is "not measured", not FAIL.
//
// The rule never forgives a value on the side load cannot push it (below
// its band for a time: other processes only ever add time to a phase;
// above it for work done: a starved generator only does less), an exact
// count's, nor a failure while the machine was quiet.

// busyThreshold is the share of the experiment's CPUs (other processes'
// plus stolen, in percent over the failing window) from which a failure is
// not taken as the experiment's: an idle machine's own daemons and kernel
// threads stay under 2 %, one CPU-bound process on a 2-CPU machine is 50 %.
const busyThreshold = 10.0

// maxAttempts bounds the measurements of one experiment's runs (each
// generator's apart): the first and two re-measurements.
const maxAttempts = 3

// disturbance is how the experiment's CPUs went over a window, in percent
// of those CPUs' time: to processes outside the experiment, and stolen.
type disturbance struct {
	Others, Stolen float64
	Known          bool   // false where the machine cannot say (not Linux, no samples)
	Window         string // what the window was: "run", "step"
}

// busy reports whether the window was disturbed enough to doubt a failure.
func (d disturbance) busy() bool { return d.Known && d.Others+d.Stolen >= busyThreshold }

// worse is the more disturbed of two windows (a band relative to another
// run depends on both).
func (d disturbance) worse(o disturbance) disturbance {
	switch {
	case !o.Known:
		return d
	case !d.Known || o.Others+o.Stolen > d.Others+d.Stolen:
		return o
	}
	return d
}

func (d disturbance) String() string {
	if !d.Known {
		return "—"
	}
	s := fmt.Sprintf("%.0f %% other processes", d.Others)
	if d.Stolen >= 0.5 {
		s += fmt.Sprintf(", %.0f %% stolen", d.Stolen)
	}
	return s
}

// loadSample is the counters at one moment: the busy and stolen time of the
// experiment's CPUs since boot, and the CPU of this process and its
// descendants (their exited children included).
type loadSample struct {
	at          time.Time
	busy, steal time.Duration
	ours        time.Duration
}

// loadTimeline is a run's samples, in time order, over cpus CPUs.
type loadTimeline struct {
	cpus    int
	samples []loadSample
}

// over is the disturbance of the window from a to b: between the last
// sample at or before a and the first at or after b (the window widened to
// the samples around it, never narrowed).
func (tl *loadTimeline) over(a, b time.Time) disturbance {
	if tl == nil || tl.cpus <= 0 || len(tl.samples) < 2 {
		return disturbance{}
	}
	s := tl.samples
	i, j := 0, len(s)-1
	for k := range s {
		if !s[k].at.After(a) {
			i = k
		}
	}
	for k := len(s) - 1; k >= 0; k-- {
		if !s[k].at.Before(b) {
			j = k
		}
	}
	wall := s[j].at.Sub(s[i].at)
	if j <= i || wall <= 0 {
		return disturbance{}
	}
	capacity := wall.Seconds() * float64(tl.cpus)
	pc := func(d time.Duration) float64 { return math.Min(100, 100*d.Seconds()/capacity) }
	others := max(s[j].busy-s[i].busy-(s[j].ours-s[i].ours), 0)
	return disturbance{Others: pc(others), Stolen: pc(max(s[j].steal-s[i].steal, 0)), Known: true}
}

// whole is the disturbance over the whole timeline.
func (tl *loadTimeline) whole() disturbance {
	if tl == nil || len(tl.samples) < 2 {
		return disturbance{}
	}
	return tl.over(tl.samples[0].at, tl.samples[len(tl.samples)-1].at)
}

// judge applies the rule to one check whose window was disturbed as d: a
// failure on the side the machine's load pushes its metric (above for a
// time, below for work done; a finding's either way) while the machine was
// busy is not the experiment's; one on the other side, an exact count's, or
// one while quiet, is. A band relative to another run is judged on either
// side as the pushed one: the reference may be what the load moved.
func judge(c Check, d disturbance) Check {
	if c.OK || c.Skipped != "" {
		return c
	}
	c.Disturbance = d
	var against bool // the value is where load cannot have pushed it
	switch c.Side {
	case loadNeither:
		against = true
	case loadLowers:
		against = c.Value > c.Hi && !c.Relative
	default:
		against = c.Value < c.Lo && !c.Relative
	}
	c.Busy = !against && d.busy()
	return c
}

// outcome is what an experiment (or one generator's runs of it) showed.
type outcome int

const (
	outcomePass        outcome = iota
	outcomeNotMeasured         // every failure came while the machine was busy
	outcomeFail                // a failure while quiet, below a band, or a run that could not complete
)

// outcomeOf is the verdict of a set of checks.
func outcomeOf(checks []Check) outcome {
	v := outcomePass
	for _, c := range checks {
		switch {
		case c.failed():
			return outcomeFail
		case c.Busy:
			v = outcomeNotMeasured
		}
	}
	return v
}

// remeasure measures until an attempt is not spoiled by a busy machine, at
// most maxAttempts times, and returns the last attempt's outcome and how
// many attempts it took.
func remeasure(maxAttempts int, measure func(attempt int) outcome) (outcome, int) {
	var v outcome
	n := 0
	for n < max(maxAttempts, 1) {
		n++
		if v = measure(n); v != outcomeNotMeasured {
			break
		}
	}
	return v, n
}

// busyNote is the sentence a not-measured check carries.
func busyNote(d disturbance) string {
	w := d.Window
	if w == "" {
		w = "run"
	}
	s := fmt.Sprintf("not measured: the machine was busy (%.0f %% of its CPUs taken by other processes during the failing %s", d.Others, w)
	if d.Stolen >= 0.5 {
		s += fmt.Sprintf(", %.0f %% stolen by the hypervisor", d.Stolen)
	}
	return s + ")"
}
