package bench

import (
	"context"
	"fmt"
)

// In the replay the two generators do not run under the same conditions:
// the engine shares its process (its Go scheduler, its two Ps, its GC)
// with the server and the path, k6 runs in a process of its own beside
// them, and the two rounds run minutes apart on a machine other work
// shares. A run with a phase out of tolerance is therefore measured once
// more with both generators alike: the server and path in a child process
// (the placement an isolated experiment uses; the experiment's own
// isolation where it has one), each generator alone in its process on the
// same CPUs, the engine then k6, back to back. The replay's figures and
// verdict stay what they were; the table shows this round beside them.

// fairRound is one run re-measured by both generators under the same
// conditions.
type fairRound struct {
	Run  string
	Eng  *RunResult
	K6   *K6Run
	Load [2]string // the machine's load average before and after
}

// fairRounds re-measures each run of x with a fidelity row out of
// tolerance. Runs through a wire keep their placement in the replay (the
// wire's namespaces belong to the process that made them) and are not
// re-measured.
func (rn *Runner) fairRounds(ctx context.Context, x *ExperimentResult) ([]fairRound, error) {
	missed := map[string]bool{}
	for _, r := range fidelity(x) {
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
		e.Isolate = &Isolation{GeneratorCPUs: all, ServerCPUs: all}
	}
	// Quiet, off the dashboard, and k6's files of the replay left alone.
	fr := *rn
	fr.Observer, fr.OnRun, fr.K6Dir, fr.Live = nil, nil, "", false
	var out []fairRound
	for i := range e.Runs {
		rs := &e.Runs[i]
		if pc := e.pathFor(rs); !missed[rs.Name] || (pc != nil && pc.Wire != nil) {
			continue
		}
		if ctx.Err() != nil {
			return out, fmt.Errorf("interrupted before re-measuring run %q", rs.Name)
		}
		fmt.Fprintf(rn.out(), "  fidelity › %s: engine and k6 again, back to back, the server and path in a child process\n", rs.Name)
		round := fairRound{Run: rs.Name, Load: [2]string{loadAverage(), ""}}
		eng, err := fr.runOne(ctx, &e, rs)
		if err != nil {
			return out, fmt.Errorf("re-measuring run %q: %w", rs.Name, err)
		}
		k6, err := fr.runK6(ctx, &e, rs)
		if err != nil {
			return out, fmt.Errorf("re-measuring run %q with k6: %w", rs.Name, err)
		}
		round.Eng, round.K6, round.Load[1] = eng, k6, loadAverage()
		out = append(out, round)
	}
	return out, nil
}

// fairOf is the re-measured round of run, or nil.
func fairOf(x *ExperimentResult, run string) *fairRound {
	for i := range x.Fair {
		if x.Fair[i].Run == run {
			return &x.Fair[i]
		}
	}
	return nil
}
