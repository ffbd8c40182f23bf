package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/record"
)

// runEngine runs every run of e with the engine.
func (rn *Runner) runEngine(ctx context.Context, e *experiment.Experiment) ([]*record.RunResult, error) {
	var runs []*record.RunResult
	for i := range e.Runs {
		if ctx.Err() != nil {
			return runs, fmt.Errorf("interrupted before run %q", e.Runs[i].Name)
		}
		r, err := rn.runOne(ctx, e, &e.Runs[i])
		if r != nil {
			runs = append(runs, r)
		}
		if err != nil {
			return runs, fmt.Errorf("run %q: %w", e.Runs[i].Name, err)
		}
	}
	return runs, nil
}

// noteAttempt records, before attempt n > 1, why the last one is measured
// again: its checks that failed while the machine was busy.
func (rn *Runner) noteAttempt(x *record.ExperimentResult, n int, with string, last []*record.RunResult) {
	if n < 2 {
		return
	}
	var why []string
	for _, r := range last {
		for _, c := range r.Checks {
			if c.Busy {
				why = append(why, fmt.Sprintf("run %q: %s (%s)", r.Spec.Name, c.Msg, c.Disturbance))
			}
		}
	}
	note := fmt.Sprintf("attempt %d%s failed only while the machine was busy: %s", n-1, with, strings.Join(why, "; "))
	x.Remeasured = append(x.Remeasured, note)
	fmt.Fprintf(rn.out(), "  ↻ %s; measuring again (%d of at most %d)\n", note, n, record.MaxAttempts)
}

func checksOf(runs []*record.RunResult) []record.Check {
	var out []record.Check
	for _, r := range runs {
		out = append(out, r.Checks...)
	}
	return out
}

func k6Results(k6 []*record.K6Run) []*record.RunResult {
	out := make([]*record.RunResult, len(k6))
	for i, kr := range k6 {
		out[i] = kr.RunResult
	}
	return out
}
