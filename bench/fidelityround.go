package bench

import (
	"context"
	"fmt"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/bench/report"
)

// In the replay the two generators do not run under the same conditions:
// the engine shares its process (its Go scheduler, its two Ps, its GC)
// with the server and the path, k6 runs in a process of its own beside
// them, and the two rounds run minutes apart on a machine other work
// shares. A run with a phase out of tolerance is therefore measured again
// in record.FairRoundsN paired rounds with both generators alike: the
// server and path in a child process (the placement an isolated experiment uses; the
// experiment's own isolation where it has one), each generator alone in
// its process on the same CPUs, back to back, the first round the engine
// first, the next k6 first, and so on (whichever runs second finds the
// machine warmer). A figure agrees when the median of the engine's rounds
// and the median of k6's are within the tolerance: one disturbed round of
// either moves no median, and a generator that is off in every round is
// off in its median. The replay's figures and verdict stay in the table.

// fairRounds re-measures each run of x with a fidelity row out of
// tolerance. Runs through a wire keep their placement in the replay (the
// wire's namespaces belong to the process that made them) and are not
// re-measured.
func (rn *Runner) fairRounds(ctx context.Context, x *record.ExperimentResult) ([]record.FairRound, error) {
	missed := map[string]bool{}
	for _, r := range report.Fidelity(x) {
		if !r.AvgOK || !r.P95OK {
			missed[r.Run] = true
		}
	}
	if len(missed) == 0 {
		return nil, nil
	}
	e := *x.Exp
	if e.Isolate == nil {
		all := allCPUs()
		e.Isolate = &experiment.Isolation{GeneratorCPUs: all, ServerCPUs: all}
	}
	// Quiet, off the dashboard, and k6's files of the replay left alone.
	fr := *rn
	fr.Observer, fr.OnRun, fr.K6Dir, fr.Live = nil, nil, "", false
	var out []record.FairRound
	for i := range e.Runs {
		rs := &e.Runs[i]
		if pc := e.PathFor(rs); !missed[rs.Name] || (pc != nil && pc.Wire != nil) {
			continue
		}
		for n := range record.FairRoundsN {
			if ctx.Err() != nil {
				return out, fmt.Errorf("interrupted before re-measuring run %q", rs.Name)
			}
			round := record.FairRound{Run: rs.Name, K6First: n%2 == 1, Load: [2]string{loadAverage(), ""}}
			first := "the engine"
			if round.K6First {
				first = "k6"
			}
			fmt.Fprintf(rn.out(), "  fidelity › %s: round %d of %d, %s first, the server and path in a child process\n", rs.Name, n+1, record.FairRoundsN, first)
			var err error
			engine := func() error {
				if round.Eng, err = fr.runOne(ctx, &e, rs); err != nil {
					return fmt.Errorf("re-measuring run %q: %w", rs.Name, err)
				}
				return nil
			}
			k6 := func() error {
				if round.K6, err = fr.runK6(ctx, &e, rs); err != nil {
					return fmt.Errorf("re-measuring run %q with k6: %w", rs.Name, err)
				}
				return nil
			}
			order := []func() error{engine, k6}
			if round.K6First {
				order = []func() error{k6, engine}
			}
			for _, run := range order {
				if err := run(); err != nil {
					return out, err
				}
			}
			round.Load[1] = loadAverage()
			out = append(out, round)
		}
	}
	return out, nil
}
