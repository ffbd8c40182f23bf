package load

import (
	"context"
	"strings"
	"sync"
	"time"
)

// ScenarioText is one scenario's line of the run's header.
type ScenarioText struct{ Name, Text string }

// scenarioRun is one scenario of a run, prepared: its effective config,
// request mix, executor and plan, and when it starts.
type scenarioRun struct {
	cfg   *Config
	mix   *mix
	x     executor
	plan  plan
	start time.Duration // k6's startTime
	st    *stripe       // the run's execution segment
}

func (s *scenarioRun) describe() string {
	text := s.plan.text
	if s.start > 0 {
		text = strings.Replace(text, " (", " (startTime: "+fmtDur(s.start)+", ", 1)
	}
	return text
}

func prepare(cfg *Config) ([]*scenarioRun, error) {
	cfgs, starts, err := cfg.Effective()
	if err != nil {
		return nil, err
	}
	if len(cfgs) > 255 {
		return nil, configErr("scenarios", "%d scenarios: at most 255", len(cfgs))
	}
	st, err := newStripe(cfg.ExecutionSegment, cfg.ExecutionSegmentSequence)
	if err != nil {
		return nil, err
	}
	var out []*scenarioRun
	for i, c := range cfgs {
		if c != cfg && (c.ExecutionSegment != "" || c.ExecutionSegmentSequence != "") {
			return nil, configErr("scenarios."+c.Scenario+".executionSegment", "a segment is the whole test's (k6's global option): set it at the top")
		}
		m, err := newMix(c)
		if err != nil {
			return nil, err
		}
		x, err := newExecutor(c, st)
		if err != nil {
			return nil, err
		}
		out = append(out, &scenarioRun{cfg: c, mix: m, x: x, plan: x.plan(), start: starts[i].D(), st: st})
	}
	return out, nil
}

// runScenarios runs every scenario's executor from its startTime and
// returns when the last is done.
func runScenarios(ctx context.Context, scs []*scenarioRun, es engines, start time.Time) {
	if len(scs) == 1 && scs[0].start == 0 {
		scs[0].x.run(ctx, es[0], start)
		return
	}
	for i, s := range scs {
		es[i].initVUs(s.plan.vus)
	}
	var wg sync.WaitGroup
	for i, s := range scs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := start.Add(s.start)
			t := time.NewTimer(time.Hour)
			defer t.Stop()
			if !sleepUntil(t, at, ctx.Done()) {
				return
			}
			s.x.run(ctx, es[i], at)
		}()
	}
	wg.Wait()
	for _, e := range es {
		e.closeUnused() // a scenario cut before its startTime
	}
}

// runPlan is the plan of the whole run: one scenario's own, or for several
// their VUs summed and the latest end; steps only for a single scenario.
func runPlan(scs []*scenarioRun) plan {
	if len(scs) == 1 && scs[0].start == 0 {
		return scs[0].plan
	}
	var p plan
	for _, s := range scs {
		p.maxVUs += s.plan.maxVUs
		p.vus += s.plan.vus
		p.rate += s.plan.rate
		if s.start+s.plan.regular > p.regular {
			p.regular = s.start + s.plan.regular
		}
		p.graceful = max(p.graceful, s.start+s.plan.regular+s.plan.graceful-p.regular)
	}
	return p
}
