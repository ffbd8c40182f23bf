package merge

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// mergeSteps aligns the parts' sweep steps by their place in the schedule
// (the segments of one test share its schedule, each step at the same
// offset from its process's start) and merges each step's metrics over
// the step's length.
func mergeSteps(in []Input) ([]metrics.Step, error) {
	n := len(in[0].Doc.Steps)
	for _, x := range in[1:] {
		if len(x.Doc.Steps) != n {
			return nil, fmt.Errorf("%w: %s has %d steps, %s %d", ErrMismatch, in[0].Name, n, x.Name, len(x.Doc.Steps))
		}
	}
	out := make([]metrics.Step, n)
	for i := range out {
		s := in[0].Doc.Steps[i]
		s.VUs, s.Rate, s.Statuses = 0, 0, map[string]int64{}
		parts := make([]part, len(in))
		for j, x := range in {
			o := x.Doc.Steps[i]
			if o.Name != s.Name {
				return nil, fmt.Errorf("%w: step %d is %q in %s, %q in %s", ErrMismatch, i+1, s.Name, in[0].Name, o.Name, x.Name)
			}
			s.VUs += o.VUs
			s.Rate += o.Rate
			addCounts(s.Statuses, o.Statuses)
			parts[j] = part{x.Name, o.Metrics, o.Histograms}
		}
		var err error
		if s.Metrics, s.Histograms, err = mergeMetrics(parts, (s.EndMs-s.StartMs)/1000); err != nil {
			return nil, fmt.Errorf("step %q: %w", s.Name, err)
		}
		j := i
		s.GeneratorCPU = busiest(in, func(d *metrics.Document) *metrics.CPUUsage { return d.Steps[j].GeneratorCPU })
		s.Server = nil // each part's view of the server in the step overlaps the others'
		out[i] = s
	}
	return out, nil
}

// mergeScenarios merges each scenario's own metrics over the whole window.
func mergeScenarios(in []Input, seconds float64) (map[string]metrics.ScenarioResult, error) {
	if len(in[0].Doc.Scenarios) == 0 {
		return nil, nil
	}
	out := map[string]metrics.ScenarioResult{}
	for name, sc := range in[0].Doc.Scenarios {
		var parts []part
		for _, x := range in {
			o, ok := x.Doc.Scenarios[name]
			if !ok {
				return nil, fmt.Errorf("%w: %s has no scenario %q", ErrMismatch, x.Name, name)
			}
			parts = append(parts, part{x.Name, o.Metrics, o.Histograms})
		}
		ms, hs, err := mergeMetrics(parts, seconds)
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w", name, err)
		}
		out[name] = metrics.ScenarioResult{Executor: sc.Executor, Metrics: ms, Histograms: hs}
	}
	return out, nil
}
