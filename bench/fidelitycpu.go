package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// The issue exempts one case from the fidelity bar: a figure where both
// generators were CPU-bound, so that each measured its own CPU as much as
// the target. A run's share of its CPU is no such measure for a sweep:
// E7's generators spend 20 % of their one CPU at 100/s and over 90 % past
// the knee, 73 % over the whole run, while the figures (the average, the
// p95) come from the requests past the knee. So a generator counts as
// CPU-bound when the steps in which it used at least cpuBound of its cores
// hold at least half of its requests; a run of one step, by its share over
// the run. Both generators must be, in the replay and in every round that
// re-measured it.

// boundShare is the CPU share (% of its cores) a generator held in the
// steps with half of its requests: the least share among its busiest
// steps that together hold half of the run's requests; the run's share
// without steps (or without their CPU). NaN when nothing says.
func boundShare(r *RunResult) float64 {
	if r == nil || r.Doc == nil {
		return math.NaN()
	}
	type step struct {
		share float64
		reqs  float64
	}
	var steps []step
	total := 0.0
	for _, s := range r.Doc.Steps {
		if s.GeneratorCPU == nil {
			return cpuOf(r)
		}
		n := s.Metrics["http_reqs"].Values["count"]
		steps = append(steps, step{s.GeneratorCPU.Percent, n})
		total += n
	}
	if len(steps) == 0 || total == 0 {
		return cpuOf(r)
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].share > steps[j].share })
	held := 0.0
	for _, s := range steps {
		held += s.reqs
		if 2*held >= total {
			return s.share
		}
	}
	return math.NaN()
}

// exemption is why a figure that agrees neither in the replay nor by the
// re-measured medians is exempt ("" when it is not): both generators
// CPU-bound in the replay and in each round. When it is not, not says
// the shares of the first pair that falls short, so the row shows how far.
func (r fidelityRow) exemption() (exempt, not string) {
	agrees := func(replay bool, fair func(*fairRow) bool) bool { return replay || (r.Fair != nil && fair(r.Fair)) }
	if agrees(r.AvgOK, func(f *fairRow) bool { return f.AvgOK }) && agrees(r.P95OK, func(f *fairRow) bool { return f.P95OK }) {
		return "", ""
	}
	pairs := [][2]*RunResult{{r.eng, r.k6}}
	for _, rd := range r.rounds {
		pairs = append(pairs, [2]*RunResult{rd.Eng, rd.K6.RunResult})
	}
	var figs []string
	for i, p := range pairs {
		name := "replay"
		if i > 0 {
			name = fmt.Sprintf("round %d", i)
		}
		e, k := boundShare(p[0]), boundShare(p[1])
		switch {
		case e >= cpuBound && k >= cpuBound:
			figs = append(figs, fmt.Sprintf("%s engine %.0f %%, k6 %.0f %%", name, e, k))
		case p[0].RunCPU >= cpuBound && p[1].RunCPU >= cpuBound:
			figs = append(figs, fmt.Sprintf("%s engine and its target %.0f %%, k6 and its target %.0f %% of the machine's CPUs (the generators alone %.0f %% and %.0f %% of their cores)",
				name, p[0].RunCPU, p[1].RunCPU, e, k))
		default:
			label := name
			if i == 0 {
				label = "the replay"
			}
			return "", fmt.Sprintf("not exempt as CPU-bound: in %s the generators' own shares were %s and %s, and the machine's CPUs were %s and %s busy with them and their targets (the bar: %.0f %% for both, by either measure)",
				label, share(e), share(k), share(p[0].RunCPU), share(p[1].RunCPU), cpuBound)
		}
	}
	how := "of its cores over the run"
	if len(r.eng.Doc.Steps) > 0 {
		how = "of its cores in the steps with half of its requests"
	}
	return fmt.Sprintf("both generators CPU-bound (each ≥ %.0f %% %s, or with the target it drives ≥ %.0f %% of the machine's CPUs: %s)",
		cpuBound, how, cpuBound, strings.Join(figs, "; ")), ""
}

// share is a CPU share for a row, "unmeasured" where nothing said.
func share(pct float64) string {
	if math.IsNaN(pct) {
		return "unmeasured"
	}
	return fmt.Sprintf("%.0f %%", pct)
}
