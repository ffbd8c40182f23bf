package record

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
// share is at least BusyThreshold is re-measured, up to MaxAttempts in all;
// if every attempt was disturbed, the verdict is "not measured", not FAIL.
//
// The rule never forgives a value on the side load cannot push it (below
// its band for a time: other processes only ever add time to a phase;
// above it for work done: a starved generator only does less), an exact
// count's, nor a failure while the machine was quiet.

// BusyThreshold is the share of the experiment's CPUs (other processes'
// plus stolen, in percent over the failing window) from which a failure is
// not taken as the experiment's: an idle machine's own daemons and kernel
// threads stay under 2 %, one CPU-bound process on a 2-CPU machine is 50 %.
const BusyThreshold = 10.0

// MaxAttempts bounds the measurements of one experiment's runs (each
// generator's apart): the first and two re-measurements.
const MaxAttempts = 3

// Disturbance is how the experiment's CPUs went over a window, in percent
// of those CPUs' time: to processes outside the experiment, and stolen.
type Disturbance struct {
	Others, Stolen float64
	Known          bool   // false where the machine cannot say (not Linux, no samples)
	Window         string // what the window was: "run", "step"
}

// busy reports whether the window was disturbed enough to doubt a failure.
func (d Disturbance) busy() bool { return d.Known && d.Others+d.Stolen >= BusyThreshold }

// worse is the more disturbed of two windows (a band relative to another
// run depends on both).
func (d Disturbance) worse(o Disturbance) Disturbance {
	switch {
	case !o.Known:
		return d
	case !d.Known || o.Others+o.Stolen > d.Others+d.Stolen:
		return o
	}
	return d
}

func (d Disturbance) String() string {
	if !d.Known {
		return "—"
	}
	s := fmt.Sprintf("%.0f %% other processes", d.Others)
	if d.Stolen >= 0.5 {
		s += fmt.Sprintf(", %.0f %% stolen", d.Stolen)
	}
	return s
}

// LoadSample is the counters at one moment: the busy and stolen time of the
// experiment's CPUs since boot, and the CPU of this process and its
// descendants (their exited children included).
type LoadSample struct {
	At          time.Time
	Busy, Steal time.Duration
	Ours        time.Duration
}

// LoadTimeline is a run's samples, in time order, over cpus CPUs.
type LoadTimeline struct {
	CPUs    int
	Samples []LoadSample
}

// over is the disturbance of the window from a to b: between the last
// sample at or before a and the first at or after b (the window widened to
// the samples around it, never narrowed).
func (tl *LoadTimeline) over(a, b time.Time) Disturbance {
	if tl == nil || tl.CPUs <= 0 || len(tl.Samples) < 2 {
		return Disturbance{}
	}
	s := tl.Samples
	i, j := 0, len(s)-1
	for k := range s {
		if !s[k].At.After(a) {
			i = k
		}
	}
	for k := len(s) - 1; k >= 0; k-- {
		if !s[k].At.Before(b) {
			j = k
		}
	}
	wall := s[j].At.Sub(s[i].At)
	if j <= i || wall <= 0 {
		return Disturbance{}
	}
	capacity := wall.Seconds() * float64(tl.CPUs)
	pc := func(d time.Duration) float64 { return math.Min(100, 100*d.Seconds()/capacity) }
	others := max(s[j].Busy-s[i].Busy-(s[j].Ours-s[i].Ours), 0)
	return Disturbance{Others: pc(others), Stolen: pc(max(s[j].Steal-s[i].Steal, 0)), Known: true}
}

// whole is the disturbance over the whole timeline.
func (tl *LoadTimeline) whole() Disturbance {
	if tl == nil || len(tl.Samples) < 2 {
		return Disturbance{}
	}
	return tl.over(tl.Samples[0].At, tl.Samples[len(tl.Samples)-1].At)
}

// Judge applies the rule to one check whose window was disturbed as d: a
// failure on the side the machine's load pushes its metric (above for a
// time, below for work done; a finding's either way) while the machine was
// busy is not the experiment's; one on the other side, an exact count's, or
// one while quiet, is. A band relative to another run is judged on either
// side as the pushed one: the reference may be what the load moved.
func Judge(c Check, d Disturbance) Check {
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

// Outcome is what an experiment (or one generator's runs of it) showed.
type Outcome int

const (
	OutcomePass        Outcome = iota
	OutcomeNotMeasured         // every failure came while the machine was busy
	OutcomeFail                // a failure while quiet, below a band, or a run that could not complete
)

// OutcomeOf is the verdict of a set of checks.
func OutcomeOf(checks []Check) Outcome {
	v := OutcomePass
	for _, c := range checks {
		switch {
		case c.Failed():
			return OutcomeFail
		case c.Busy:
			v = OutcomeNotMeasured
		}
	}
	return v
}

// Remeasure measures until an attempt is not spoiled by a busy machine, at
// most maxAttempts times, and returns the last attempt's outcome and how
// many attempts it took.
func Remeasure(maxAttempts int, measure func(attempt int) Outcome) (Outcome, int) {
	var v Outcome
	n := 0
	for n < max(maxAttempts, 1) {
		n++
		if v = measure(n); v != OutcomeNotMeasured {
			break
		}
	}
	return v, n
}

// BusyNote is the sentence a not-measured check carries.
func BusyNote(d Disturbance) string {
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
