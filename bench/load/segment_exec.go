package load

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// newSegmentedExecutor is an executor's share of the run in one execution
// segment, as k6 splits each executor: constant-vus and per-vu-iterations
// scale the VUs (each VU keeps its iterations); shared-iterations scales
// the VUs and deals the iterations to the segments that got VUs, by VUs;
// ramping-vus scales the whole run's VU curve point by
// point, keeping its timing; the arrival rates scale their VUs and start
// only the segment's stripes of the whole run's arrivals, at the whole
// run's times.
func newSegmentedExecutor(cfg *Config, st *stripe) (executor, error) {
	c := *cfg
	switch cfg.ExecutorName() {
	case ConstantVUs, PerVUIterations:
		c.VUs = st.scaleInt(cfg.vus())
		if c.VUs == 0 {
			return idleSegment{st}, nil
		}
	case SharedIterations:
		// The iterations are split over the segments that got VUs, in
		// proportion to their VUs (k6's GetIterations).
		c.VUs = st.scaleInt(cfg.vus())
		byVUs, err := st.resplit(int64(cfg.vus()))
		if err != nil {
			return nil, err
		}
		if byVUs == nil || c.VUs == 0 {
			return idleSegment{st}, nil
		}
		if c.Iterations = byVUs.scale(cfg.Iterations); c.Iterations == 0 {
			return idleSegment{st}, nil
		}
	case RampingVUs:
		return segmentedExecutor{rampingVUs{cfg: cfg, st: st}, st}, nil
	case ConstantArrivalRate, RampingArrivalRate:
		// The arrivals are the whole run's, striped; the header, the peak
		// and the steps show this segment's share of the rate.
		x, err := newExecutor(cfg, fullStripe())
		if err != nil {
			return nil, err
		}
		share, _ := st.seg.length().Float64()
		c.Rate.N *= share
		c.StartRate *= share
		c.Stages = append([]Stage(nil), cfg.Stages...)
		for i := range c.Stages {
			c.Stages[i].Target *= share
		}
		pre, mx := arrivalVUs(cfg)
		c.PreAllocatedVUs, c.MaxVUs = max(st.scaleInt(pre), 1), st.scaleInt(mx) // valid for the constructor; the run's are set below
		y, err := newExecutor(&c, fullStripe())
		if err != nil {
			return nil, err
		}
		a := y.(*arrivalRate)
		whole := x.(*arrivalRate)
		a.pacer = stripedPacer{all: whole.pacer, st: st}
		for i := range a.steps {
			a.steps[i].name = whole.steps[i].name // the whole test's stage, the same in every segment's document
		}
		hp, hm := arrivalVUs(&c)
		a.preVUs, a.maxVUs = st.scaleInt(pre), st.scaleInt(mx)
		a.text = strings.Replace(a.text, fmt.Sprintf("maxVUs: %d-%d", hp, hm), fmt.Sprintf("maxVUs: %d-%d", a.preVUs, a.maxVUs), 1)
		return segmentedExecutor{a, st}, nil
	}
	x, err := newExecutor(&c, fullStripe())
	if err != nil {
		return nil, err
	}
	return segmentedExecutor{x, st}, nil
}

// segmentedExecutor names the segment in the run's header.
type segmentedExecutor struct {
	executor
	st *stripe
}

func (x segmentedExecutor) plan() plan {
	p := x.executor.plan()
	if _, ok := x.executor.(rampingVUs); ok {
		steps := append([]stepSpec(nil), p.steps...)
		for i := range steps {
			steps[i].vus = x.st.scaleInt(steps[i].vus) // the target's share; the name keeps the whole test's stage
		}
		p.steps = steps
	}
	p.text = "execution segment " + x.st.String() + ": " + p.text
	return p
}

// idleSegment is a segment whose share of the VUs or iterations is zero
// (a thin slice of a small test): it runs nothing, as k6's would.
type idleSegment struct{ st *stripe }

func (x idleSegment) plan() plan {
	return plan{text: "execution segment " + x.st.String() + ": no VUs or iterations fall to this segment"}
}

func (idleSegment) run(context.Context, *engine, time.Time) {}

// schedule is the ramping-vus curve of this segment: the whole run's curve,
// each point's VUs scaled, equal neighbours merged.
func (x rampingVUs) schedule() []vuChange {
	all := vuSchedule(x.cfg.StartVUs, x.cfg.Stages)
	if x.st == nil || x.st.isFull() {
		return all
	}
	var out []vuChange
	for _, c := range all {
		n := x.st.scaleInt(c.VUs)
		if len(out) == 0 || out[len(out)-1].VUs != n {
			out = append(out, vuChange{c.At, n})
		}
	}
	return out
}
