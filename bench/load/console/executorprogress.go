package console

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// A scenario's progress line ends in columns its executor chooses, as in
// k6 (lib/executor/*.go, each executor's progress function): the VUs, the
// time spent of the planned, and what the executor counts toward — shared
// iterations, iterations per VU, arrivals per second. Each returns the
// fraction done too: of the iterations for the iteration-based executors,
// of the time for the others.

// scenarioPlan is what a line needs beyond the engine's ScenarioProgress:
// what the scenario's executor was configured to count toward.
type scenarioPlan struct {
	iterations int64 // shared-iterations: in all; per-vu-iterations: per VU
	preAlloc   int   // arrival rate: VUs allocated before the start
	rate       rateAt
	maxRate    float64 // per second: the width of the rate column
}

// rateAt is an arrival rate's target per second, own time into the scenario.
type rateAt func(own time.Duration) float64

// plansOf reads each scenario's plan off the config, by scenario name.
func plansOf(cfg *load.Config) map[string]scenarioPlan {
	scs, _, err := cfg.Effective()
	if err != nil {
		return nil // Describe has refused such a config before any progress
	}
	out := map[string]scenarioPlan{}
	for _, c := range scs {
		p := scenarioPlan{iterations: max(c.Iterations, 1), preAlloc: c.PreAllocatedVUs}
		switch c.ExecutorName() {
		case load.ConstantArrivalRate:
			r := c.Rate.PerSecond()
			p.rate, p.maxRate = func(time.Duration) float64 { return r }, r
		case load.RampingArrivalRate:
			p.rate, p.maxRate = rampOf(c)
		}
		name := c.Scenario
		if name == "" {
			name = load.DefaultScenario
		}
		out[name] = p
	}
	return out
}

// rampOf is a ramping-arrival-rate's target over time: linear from each
// stage's start to its target, per second, and its highest.
func rampOf(c *load.Config) (rateAt, float64) {
	unit := time.Second
	if c.TimeUnit > 0 {
		unit = c.TimeUnit.D()
	}
	perSec := func(v float64) float64 { return v / unit.Seconds() }
	from, top := perSec(c.StartRate), perSec(c.StartRate)
	for _, s := range c.Stages {
		top = max(top, perSec(s.Target))
	}
	stages := c.Stages
	return func(own time.Duration) float64 {
		at := from
		for _, s := range stages {
			to, d := perSec(s.Target), s.Duration.D()
			if own < d {
				return at + (to-at)*float64(own)/float64(d)
			}
			own -= d
			at = to
		}
		return at
	}, top
}

// columns is one executor's part of the line: the fraction done and the
// columns after the bar. own is the time into the scenario; allocated the
// VUs an arrival-rate scenario holds.
type columns func(s load.ScenarioProgress, p scenarioPlan, own time.Duration, allocated int) (float64, []string)

// executorColumns are k6's columns, by executor.
var executorColumns = map[string]columns{
	load.ConstantVUs: func(s load.ScenarioProgress, _ scenarioPlan, own time.Duration, _ int) (float64, []string) {
		vus := fmt.Sprintf("%d VUs", s.MaxVUs)
		return timeDone(own, s.Planned, vus)
	},
	load.RampingVUs: func(s load.ScenarioProgress, _ scenarioPlan, own time.Duration, _ int) (float64, []string) {
		n := digits(s.MaxVUs)
		vus := fmt.Sprintf("%0*d/%0*d VUs", n, s.VUs, n, s.MaxVUs)
		if own > s.Planned {
			return 1, []string{vus, s.Planned.String()}
		}
		return fraction(own, s.Planned), []string{vus, fixedDuration(own, s.Planned) + "/" + fixedDuration(s.Planned, s.Planned)}
	},
	load.PerVUIterations: func(s load.ScenarioProgress, p scenarioPlan, own time.Duration, _ int) (float64, []string) {
		total := int64(s.MaxVUs) * p.iterations
		n := digits(int(total))
		vus := fmt.Sprintf("%0*d VUs", digits(s.MaxVUs), s.MaxVUs)
		iters := fmt.Sprintf("%0*d/%0*d iters, %d per VU", n, s.Iterations, n, total, p.iterations)
		if own > s.Planned {
			return 1, []string{vus, s.Planned.String(), iters}
		}
		return float64(s.Iterations) / float64(total), []string{vus, fixedDuration(own, s.Planned) + "/" + s.Planned.String(), iters}
	},
	load.SharedIterations: func(s load.ScenarioProgress, p scenarioPlan, own time.Duration, _ int) (float64, []string) {
		n := digits(int(p.iterations))
		vus := fmt.Sprintf("%0*d VUs", digits(s.MaxVUs), s.MaxVUs)
		iters := fmt.Sprintf("%0*d/%0*d shared iters", n, s.Iterations, n, p.iterations)
		return float64(s.Iterations) / float64(p.iterations), []string{vus, fixedDuration(own, s.Planned) + "/" + s.Planned.String(), iters}
	},
	load.ConstantArrivalRate: arrivalColumns,
	load.RampingArrivalRate:  arrivalColumns,
}

// arrivalColumns: VUs running of those allocated, the time, the rate.
// The first figure is ScenarioProgress.VUs: the engine's active VUs (k6's
// vus gauge), which for an arrival rate are its allocated ones, not k6's
// count of VUs inside an iteration, which Progress does not carry.
func arrivalColumns(s load.ScenarioProgress, p scenarioPlan, own time.Duration, allocated int) (float64, []string) {
	n := digits(s.MaxVUs)
	vus := fmt.Sprintf("%0*d/%0*d VUs", n, s.VUs, n, allocated)
	rate := s.Rate
	if p.rate != nil {
		rate = p.rate(min(own, s.Planned))
	}
	frac, right := timeDone(own, s.Planned, vus)
	return frac, append(right, fmt.Sprintf(fixedFloat(max(p.maxRate, rate), 2)+" iters/s", rate))
}

// timeDone is the VUs and the time of an executor that runs for a time.
func timeDone(own, planned time.Duration, vus string) (float64, []string) {
	if own > planned {
		return 1, []string{vus, planned.String()}
	}
	return fraction(own, planned), []string{vus, fixedDuration(own, planned) + "/" + planned.String()}
}

func fraction(own, planned time.Duration) float64 {
	if planned <= 0 {
		return 1
	}
	return math.Min(1, float64(own)/float64(planned))
}

// digits is how many digits n has: the width of a count that grows to n.
func digits(n int) int { return len(strconv.Itoa(max(n, 0))) }

// fixedFloat is a format that prints values up to top with the same width.
func fixedFloat(top float64, precision int) string {
	width := 1
	if top < 0 {
		top, width = -top, width+1
	}
	if top >= 10 {
		width += int(math.Log10(top))
	}
	if precision > 0 {
		width += precision + 1
	}
	return "%0" + strconv.Itoa(width) + "." + strconv.Itoa(precision) + "f"
}

// fixedDuration prints d to a tenth of a second with as many fields as
// top needs, so the column keeps its width as d grows to top: 4.5s under
// 10 s, 04.5s under a minute, 0m04.5s under 10 min, 00m04.5s under an
// hour, then hours (0h…, 00h…) and days.
func fixedDuration(d, top time.Duration) string {
	d, top = d.Abs(), max(top.Abs(), d.Abs())
	top = top.Round(100 * time.Millisecond)
	tenths := int64(d.Round(100*time.Millisecond) / (100 * time.Millisecond))
	sec, tenth := tenths/10, tenths%10
	switch {
	case top < 10*time.Second:
		return fmt.Sprintf("%d.%ds", sec%10, tenth)
	case top < time.Minute:
		return fmt.Sprintf("%02d.%ds", sec%60, tenth)
	}
	min, sec := sec/60, sec%60
	switch {
	case top < 10*time.Minute:
		return fmt.Sprintf("%dm%02d.%ds", min%10, sec, tenth)
	case top < time.Hour:
		return fmt.Sprintf("%02dm%02d.%ds", min%60, sec, tenth)
	}
	hours, min := min/60, min%60
	switch {
	case top < 10*time.Hour:
		return fmt.Sprintf("%dh%02dm%02d.%ds", hours%10, min, sec, tenth)
	case top < 24*time.Hour:
		return fmt.Sprintf("%02dh%02dm%02d.%ds", hours%24, min, sec, tenth)
	}
	days, hours := hours/24, hours%24
	return fmt.Sprintf("%dd%02dh%02dm%02d.%ds", days, hours, min, sec, tenth)
}

// Columns returns each scenario's executor columns at pr, as k6 prints
// them after the bar: "1/4 VUs", "1.0s/3.0s", "086/120 iters, 60 per VU".
// One line per scenario, for a caller with its own layout (the harness).
func Columns(cfg *load.Config, pr load.Progress) [][]string {
	plans := plansOf(cfg)
	out := make([][]string, len(pr.Scenarios))
	for i, s := range pr.Scenarios {
		cols, ok := executorColumns[s.Executor]
		own := pr.Elapsed - s.Start
		if !ok || own < 0 {
			continue
		}
		allocated := max(plans[s.Name].preAlloc, s.VUs)
		if len(pr.Scenarios) == 1 {
			allocated = pr.MaxVUs
		}
		_, out[i] = cols(s, plans[s.Name], own, allocated)
	}
	return out
}
