package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// The issue exempts one case from the fidelity bar: a figure where both
// generators were CPU-bound, so that each measured its own CPU as much as
// the target (and its kin, generatorBound: a closed loop against a target
// that takes no time, where each measures only itself). A run's share of its CPU is no such measure for a sweep:
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
func boundShare(r *record.RunResult) float64 {
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
// CPU-bound in the replay and in each round, or the run generator-bound
// (generatorBound). When it is neither, not says the CPU shares of the
// first pair that falls short, so the row shows how far.
func (r FidelityRow) exemption() (exempt, not string) {
	agrees := func(replay bool, fair func(*fairRow) bool) bool { return replay || (r.Fair != nil && fair(r.Fair)) }
	avgOK, p95OK := agrees(r.AvgOK, func(f *fairRow) bool { return f.AvgOK }), agrees(r.P95OK, func(f *fairRow) bool { return f.P95OK })
	if avgOK && p95OK {
		return "", ""
	}
	pairs := [][2]*record.RunResult{{r.eng, r.k6}}
	for _, rd := range r.rounds {
		pairs = append(pairs, [2]*record.RunResult{rd.Eng, rd.K6.RunResult})
	}
	exempt, not = r.cpuBound(pairs)
	if not == "" {
		return exempt, ""
	}
	var out []string
	if !avgOK {
		out = append(out, "avg")
	}
	if !p95OK {
		out = append(out, "p(95)")
	}
	if gen := r.generatorBound(pairs, out); gen != "" {
		return gen, ""
	}
	return "", not
}

// cpuBound is exemption's first case: both generators CPU-bound in every
// pair (the replay, then each round), or else why not.
func (r FidelityRow) cpuBound(pairs [][2]*record.RunResult) (exempt, not string) {
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

// generatorBound is exemption's second case, E6's: a closed model (VUs)
// with no think time against a target that took no time for the phase —
// the server and the stages report 0 for each stat out, with both
// generators, in every pair. Each VU then sends its next request the
// moment its last one ends, so the request rate and every phase are the
// generator's own speed (its scheduling, its collector, its CPU per
// request) and two generators measure themselves, not the target. "" when
// the run is not such a run; else the exemption, with each generator's
// CPU per request and share in the replay.
func (r FidelityRow) generatorBound(pairs [][2]*record.RunResult, stats []string) string {
	if r.eng == nil || r.eng.Spec == nil || r.k6 == nil {
		return ""
	}
	cfg := &r.eng.Spec.Load
	switch cfg.ExecutorName() {
	case load.ConstantArrivalRate, load.RampingArrivalRate:
		return "" // the arrivals set the pace, not the generator
	}
	if !cfg.Think.IsZero() {
		return ""
	}
	for _, p := range pairs {
		for _, stat := range stats {
			for _, g := range p {
				if t, _ := targetTime(g, r.Phase, stat); t != 0 { // NaN too: nothing says
					return ""
				}
			}
		}
	}
	return fmt.Sprintf("generator-bound (a closed model with no think time, and the server and stages report 0 for this phase in the replay and in every round: each VU's next request leaves the moment its last ends, so the figures are each generator's own speed; CPU per request in the replay: engine %s (%.0f %% of %s), k6 %s (%.0f %% of %s), %.1f× the engine's)",
		metrics.FormatMs(r.EngCPUms), r.EngCPU, coresOf(r.eng), metrics.FormatMs(r.K6CPUms), r.K6CPU, coresOf(r.k6), r.K6CPUms/r.EngCPUms)
}

// share is a CPU share for a row, "unmeasured" where nothing said.
func share(pct float64) string {
	if math.IsNaN(pct) {
		return "unmeasured"
	}
	return fmt.Sprintf("%.0f %%", pct)
}
