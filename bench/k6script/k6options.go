package k6script

import (
	"fmt"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/units"
)

// k6Options is the options object a generated script exports: what the
// run's load config says, in k6's option names, every schedule field
// explicit so that k6's defaults and the engine's cannot drift apart.
type k6Options struct {
	Scenarios             map[string]k6Scenario `json:"scenarios"`
	SummaryTrendStats     []string              `json:"summaryTrendStats"`
	DiscardResponseBodies bool                  `json:"discardResponseBodies"` // the engine reads and drops bodies too
	NoConnectionReuse     bool                  `json:"noConnectionReuse,omitempty"`
	NoVUConnectionReuse   bool                  `json:"noVUConnectionReuse,omitempty"`
	UserAgent             *string               `json:"userAgent,omitempty"`
	InsecureSkipTLSVerify bool                  `json:"insecureSkipTLSVerify,omitempty"`
	MaxRedirects          *int                  `json:"maxRedirects,omitempty"`
	Thresholds            map[string][]any      `json:"thresholds,omitempty"`
}

// k6Scenario is one scenario, with only the keys its executor takes.
type k6Scenario struct {
	Executor         string    `json:"executor"`
	VUs              int       `json:"vus,omitempty"`
	Iterations       int64     `json:"iterations,omitempty"`
	Duration         string    `json:"duration,omitempty"`
	StartVUs         *int      `json:"startVUs,omitempty"`
	Stages           []k6Stage `json:"stages,omitempty"`
	Rate             float64   `json:"rate,omitempty"`
	StartRate        *float64  `json:"startRate,omitempty"`
	TimeUnit         string    `json:"timeUnit,omitempty"`
	PreAllocatedVUs  int       `json:"preAllocatedVUs,omitempty"`
	MaxVUs           int       `json:"maxVUs,omitempty"`
	MaxDuration      string    `json:"maxDuration,omitempty"`
	GracefulStop     string    `json:"gracefulStop"`
	GracefulRampDown string    `json:"gracefulRampDown,omitempty"`
}

type k6Stage struct {
	Duration string  `json:"duration"`
	Target   float64 `json:"target"`
}

// k6TrendStats are the stats the harness reads (avg, p(95), …).
var k6TrendStats = [...]string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"}

// dur prints a duration as k6 parses it (Go's syntax).
func dur(d time.Duration) string { return d.String() }

func orDefault(d *units.Duration, def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return d.D()
}

// k6OptionsOf translates a run's load config. The engine's own defaults
// (one VU, startVUs 0, preAllocatedVUs from vus, a duration given with
// iterations read as maxDuration) are written out, so k6 runs what the
// engine runs, not what its own defaults would make of a missing key.
func k6OptionsOf(c *load.Config) (*k6Options, error) {
	exec := c.ExecutorName()
	s := k6Scenario{Executor: exec, GracefulStop: dur(orDefault(c.GracefulStop, load.DefaultGracefulStop))}
	vus := max(c.VUs, 1)
	switch exec {
	case load.ConstantVUs:
		s.VUs, s.Duration = vus, dur(c.Duration.D())
	case load.RampingVUs:
		start := c.StartVUs
		s.StartVUs, s.Stages = &start, k6Stages(c.Stages)
		s.GracefulRampDown = dur(orDefault(c.GracefulRampDown, load.DefaultGracefulStop))
	case load.PerVUIterations, load.SharedIterations:
		s.VUs, s.Iterations = vus, max(c.Iterations, 1)
		switch {
		case c.MaxDuration > 0:
			s.MaxDuration = dur(c.MaxDuration.D())
		case c.Duration > 0:
			s.MaxDuration = dur(c.Duration.D())
		default:
			s.MaxDuration = dur(load.DefaultMaxDuration)
		}
	case load.ConstantArrivalRate, load.RampingArrivalRate:
		s.PreAllocatedVUs = c.PreAllocatedVUs
		if s.PreAllocatedVUs == 0 {
			s.PreAllocatedVUs = vus
		}
		s.MaxVUs = max(c.MaxVUs, s.PreAllocatedVUs)
		if exec == load.ConstantArrivalRate {
			s.Rate, s.TimeUnit, s.Duration = c.Rate.N, dur(c.Rate.Per), dur(c.Duration.D())
			break
		}
		unit := time.Second
		if c.TimeUnit > 0 {
			unit = c.TimeUnit.D()
		}
		start := c.StartRate
		s.StartRate, s.TimeUnit, s.Stages = &start, dur(unit), k6Stages(c.Stages)
	default:
		return nil, fmt.Errorf("executor %q: no k6 translation", exec)
	}
	scenario := c.Scenario
	if scenario == "" {
		scenario = load.DefaultScenario
	}
	o := &k6Options{
		Scenarios:             map[string]k6Scenario{scenario: s},
		SummaryTrendStats:     k6TrendStats[:],
		DiscardResponseBodies: true,
		NoConnectionReuse:     c.NoConnectionReuse,
		NoVUConnectionReuse:   c.NoVUConnectionReuse,
		UserAgent:             c.UserAgent,
		InsecureSkipTLSVerify: c.InsecureSkipTLSVerify,
		MaxRedirects:          c.MaxRedirects,
		Thresholds:            k6Thresholds(c.Thresholds),
	}
	return o, nil
}

// k6Thresholds writes each threshold in k6's short form, or its object
// form when it aborts the run.
func k6Thresholds(in map[string][]load.ThresholdExpr) map[string][]any {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string][]any, len(in))
	for metric, exprs := range in {
		for _, t := range exprs {
			var v any = t.Threshold
			if t.AbortOnFail || t.DelayAbortEval.D() > 0 {
				obj := map[string]any{"threshold": t.Threshold, "abortOnFail": t.AbortOnFail}
				if d := t.DelayAbortEval.D(); d > 0 {
					obj["delayAbortEval"] = dur(d)
				}
				v = obj
			}
			out[metric] = append(out[metric], v)
		}
	}
	return out
}

func k6Stages(st []load.Stage) []k6Stage {
	out := make([]k6Stage, len(st))
	for i, s := range st {
		out[i] = k6Stage{Duration: dur(s.Duration.D()), Target: s.Target}
	}
	return out
}
