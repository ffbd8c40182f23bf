package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/bench/report"
)

// Runner replays experiments.
type Runner struct {
	K6    string    // real k6: each run is replayed with it too (see K6Run); "" for none
	K6Dir string    // where k6's script, export and stream of each run are kept; "" for a temporary directory
	Out   io.Writer // the report; nil discards it
	Live  bool      // a progress line, rewritten in place (a terminal)
	Quick bool      // the experiments were loaded with their quick vars
	Now   func() time.Time

	Observer load.Observer                                // if set, sees every request (the live dashboard)
	OnRun    func(experiment string, r *record.RunResult) // if set, called as each run is diagnosed

	cpus []int // the CPUs the experiments may use, read before any run pins this process
}

func (rn *Runner) now() time.Time {
	if rn.Now != nil {
		return rn.Now()
	}
	return time.Now()
}

func (rn *Runner) out() io.Writer {
	if rn.Out == nil {
		return io.Discard
	}
	return rn.Out
}

// Run replays one experiment: each run against a fresh server and path.
// A cancelled ctx stops it after the current run, whose measurements are
// kept; the result then carries the interruption as its error. Runs whose
// checks failed only while the machine was busy are measured again (see
// remeasure), the engine's and k6's apart.
func (rn *Runner) Run(ctx context.Context, e *experiment.Experiment) *record.ExperimentResult {
	x := &record.ExperimentResult{Exp: e}
	t0 := rn.now()
	if rn.cpus == nil {
		rn.cpus = allCPUs() // before any run pins this process
	}
	fmt.Fprintf(rn.out(), "\n▶ %s — %s\n", e.ID, e.Title)
	record.Remeasure(record.MaxAttempts, func(attempt int) record.Outcome {
		rn.noteAttempt(x, attempt, "", x.Runs)
		x.Runs, x.Err = rn.runEngine(ctx, e)
		if x.Err != nil {
			return record.OutcomeFail
		}
		record.CheckAll(x.Runs)
		return record.OutcomeOf(checksOf(x.Runs))
	})
	if x.Err == nil && rn.K6 != "" {
		record.Remeasure(record.MaxAttempts, func(attempt int) record.Outcome {
			rn.noteAttempt(x, attempt, " with k6", k6Results(x.K6))
			x.K6 = nil
			if x.Err = rn.runAllK6(ctx, x); x.Err != nil {
				return record.OutcomeFail
			}
			return record.OutcomeOf(checksOf(k6Results(x.K6)))
		})
	}
	if x.Err == nil && rn.K6 != "" {
		x.Fair, x.Err = rn.fairRounds(ctx, x)
	}
	x.Elapsed = rn.now().Sub(t0)
	report.PrintExperiment(rn.out(), x)
	report.PrintK6(rn.out(), x)
	return x
}

// ErrTainted is wrapped by an error that leaves this process changed for
// every later experiment (a CPU mask not restored, a serving child that
// did not stop): the replay stops there instead of measuring on.
var ErrTainted = errors.New("the harness could not undo what it changed")

func (rn *Runner) runOne(ctx context.Context, e *experiment.Experiment, rs *experiment.RunSpec) (rr *record.RunResult, err error) {
	t0 := rn.now()
	rr = &record.RunResult{Spec: rs, PathCfg: e.PathFor(rs), RunCPU: math.NaN()}
	pl, err := rn.place(ctx, e, rs, rs.Generators < 2)
	if err != nil {
		return nil, err
	}
	tgt := pl.tgt
	rr.Pinned = pl.pinned
	defer func() { err = errors.Join(err, undo(tgt, pl.restore)) }()

	cfg, err := rs.Load.Aim(tgt.entry())
	if err != nil {
		return nil, err
	}
	if rs.Generators > 1 {
		return rn.runGenerators(ctx, e, rs, rr, tgt, t0)
	}
	line := newProgressLine(rn.out(), rn.Live, e.ID, rs.Name, cfg)
	observer := rn.Observer
	if record.FindRateLimit(rr.PathCfg) != nil { // only a limiter's expectation reads the span
		so := newSpanObserver(rn.Observer)
		observer, rr.Arrivals = so, so.span
	}
	meter, lm := startRunMeter(tgt), startLoadMeter(rn.cpus)
	res, err := load.Run(ctx, cfg, load.Options{Progress: line.update, Dial: wireDial(tgt), Observer: observer})
	rr.RunCPU, rr.Load = meter.percent(0), lm.end()
	line.done()
	if err != nil {
		return nil, err
	}
	rr.Result = res
	if err := rn.finishRun(ctx, e, tgt, rr, res.Document()); err != nil {
		return nil, err
	}
	rr.Elapsed = rn.now().Sub(t0)
	if res.Aborted {
		return rr, errors.New("interrupted (Ctrl-C): the measurements so far are kept")
	}
	return rr, nil
}

// finishRun completes a run's record from its results document: the
// server's and the path's own views (once the requests the generator gave
// up on have settled), the document they join, and the analyzer's report.
func (rn *Runner) finishRun(ctx context.Context, e *experiment.Experiment, tgt target, rr *record.RunResult, doc *metrics.Document) error {
	settle(ctx, tgt)
	view, err := tgt.serverView(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	ps, err := tgt.pathStats(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	rr.Server, rr.Path = view, ps
	doc.Server = &view
	if ps != nil {
		if doc.Stages, err = json.Marshal(ps); err != nil {
			return err
		}
	}
	rr.Doc = doc
	if rr.Origin.IsZero() {
		rr.Origin = record.OriginOf(doc)
	}
	obs, err := diagnose.FromDocument(doc)
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	rr.Report = diagnose.Analyze(obs, diagnose.DefaultConfig())
	if rn.OnRun != nil {
		rn.OnRun(e.ID, rr)
	}
	return nil
}

// undo restores the CPU mask and stops the target; what it cannot undo is
// ErrTainted.
func undo(tgt target, restore func() error) error {
	var errs []error
	if restore != nil {
		if err := restore(); err != nil {
			errs = append(errs, fmt.Errorf("%w: restoring the CPU affinity mask: %v", ErrTainted, err))
		}
	}
	if err := tgt.close(); err != nil {
		errs = append(errs, fmt.Errorf("%w: stopping the server and path: %v", ErrTainted, err))
	}
	return errors.Join(errs...)
}

// placement is where a run's target runs and its generator goes.
type placement struct {
	tgt     target
	pinned  string       // what was pinned where, or empty
	gen     []int        // the generator's CPUs, when pinned
	restore func() error // undoes pinning this process, or nil
}

// place starts the server and the run's path, in this process or, for an
// isolated experiment, in a child pinned apart; with engine this process
// (the engine) moves to the generator's CPUs, else the generator is
// another process that the caller pins to gen.
func (rn *Runner) place(ctx context.Context, e *experiment.Experiment, rs *experiment.RunSpec, engine bool) (*placement, error) {
	if e.Isolate == nil {
		t, err := startLocal(ctx, e.ServerFor(rs), e.PathFor(rs), false)
		if err != nil {
			return nil, err
		}
		return &placement{tgt: t}, nil
	}
	gen, srv := e.Isolate.Split(allCPUs())
	env := []string{childSpec{File: e.File, Run: rs.Name, Quick: rn.Quick}.env()}
	if e.Isolate.ServerProcs > 0 {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", e.Isolate.ServerProcs))
	}
	if !canPin || len(gen) == 0 || len(srv) == 0 {
		ct, err := startChild(ctx, nil, env)
		if err != nil {
			return nil, err
		}
		return &placement{tgt: ct, pinned: "nothing pinned (this OS or CPU count does not allow it); server and path in a child process"}, nil
	}
	ct, err := startChild(ctx, srv, env)
	if err != nil {
		return nil, err
	}
	pl := &placement{tgt: ct, gen: gen}
	if engine {
		if pl.restore, err = pinSelf(gen); err != nil {
			return nil, errors.Join(err, undo(ct, nil))
		}
	}
	pl.pinned = fmt.Sprintf("generator on CPU %s; server and path in a child process on CPU %s", cpuList(gen), cpuList(srv))
	if e.Isolate.ServerProcs > 0 {
		pl.pinned += fmt.Sprintf(" with GOMAXPROCS=%d", e.Isolate.ServerProcs)
	}
	return pl, nil
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// settle waits (up to 5 s) until the server has nothing in flight.
func settle(ctx context.Context, t target) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		v, err := t.serverView(context.WithoutCancel(ctx))
		if err != nil || v.InFlight == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
