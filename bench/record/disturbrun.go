package record

import (
	"fmt"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/metrics"
)

// RunDisturbance is the disturbance over the whole run.
func (r *RunResult) RunDisturbance() Disturbance {
	d := r.Load.whole()
	d.Window = "run"
	return d
}

// StepDisturbance is the disturbance over one step of a sweep, or unknown
// when the run's steps have no origin on the wall clock.
func (r *RunResult) StepDisturbance(s *metrics.Step) Disturbance {
	if r.Origin.IsZero() || s == nil {
		return Disturbance{}
	}
	at := func(ms float64) time.Time { return r.Origin.Add(time.Duration(ms * float64(time.Millisecond))) }
	d := r.Load.over(at(s.StartMs), at(s.EndMs))
	d.Window = "step"
	return d
}

// bandDisturbance is the disturbance over what a band reads: the step it
// names, or the whole run, and the most disturbed of what its bounds read
// (another run for near, a step or the run for @{…}).
func (r *RunResult) bandDisturbance(b experiment.Band, byName map[string]*RunResult) Disturbance {
	d := r.RunDisturbance()
	if w := strings.Fields(b.Metric); len(w) > 1 && w[0] == "step" {
		d = r.StepDisturbance(r.stepNamed(w[1]))
	}
	if o, ok := byName[b.Near]; ok && b.Near != "" {
		d = d.worse(o.RunDisturbance())
	}
	for _, ref := range b.Refs() {
		w := strings.Fields(ref)
		if len(w) > 1 && w[0] == "step" {
			d = d.worse(r.StepDisturbance(r.stepNamed(w[1])))
		} else {
			d = d.worse(r.RunDisturbance())
		}
	}
	return d
}

// OriginOf is when a document's run began, the zero time if it does not say.
func OriginOf(doc *metrics.Document) time.Time {
	if doc == nil || doc.Run == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, doc.Run.Start)
	return t
}

// StepsDisturbance says each step's disturbance in a line, or "" for a run
// without steps.
func (r *RunResult) StepsDisturbance() string {
	if r.Doc == nil || len(r.Doc.Steps) < 2 {
		return ""
	}
	var parts []string
	for i := range r.Doc.Steps {
		d := r.StepDisturbance(&r.Doc.Steps[i])
		parts = append(parts, fmt.Sprintf("%d: %s", i+1, d.short()))
	}
	return strings.Join(parts, ", ")
}

// short is the disturbance as "12 %" (others + stolen) or "—".
func (d Disturbance) short() string {
	if !d.Known {
		return metrics.NoValue
	}
	return fmt.Sprintf("%.0f %%", d.Others+d.Stolen)
}

// Pair is the disturbance as "12 %, 0 %" (others, stolen) or "—".
func (d Disturbance) Pair() string {
	if !d.Known {
		return metrics.NoValue
	}
	return fmt.Sprintf("%.0f %%, %.0f %%", d.Others, d.Stolen)
}
