package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/k6script"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// findK6 returns the k6 to use and its version: path, or with K6OnPath
// k6 from PATH ("" when there is none).
func findK6(path string) (exe, version string, err error) {
	if path == K6OnPath {
		if path, err = exec.LookPath("k6"); err != nil {
			return "", "", nil
		}
	}
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		return "", "", fmt.Errorf("--k6 %s: %w", path, err)
	}
	version, _, _ = strings.Cut(strings.TrimSpace(string(out)), " (")
	return path, version, nil
}

// isSweep reports whether a run's steps are read: one whose schedule has stages.
func isSweep(rs *experiment.RunSpec) bool { return len(rs.Load.Stages) > 0 }

// runK6 runs one run's generated script with k6 against a fresh target,
// pinned as the engine was, and reads what k6 wrote.
func (rn *Runner) runK6(ctx context.Context, e *experiment.Experiment, rs *experiment.RunSpec) (kr *record.K6Run, err error) {
	t0 := rn.now()
	src, err := k6script.ForRun(e, rs)
	if err != nil {
		return nil, err
	}
	dir, err := rn.k6Dir(e, rs)
	if err != nil {
		return nil, err
	}
	if rn.K6Dir == "" {
		defer os.RemoveAll(dir)
	}
	script := filepath.Join(dir, "run.js")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		return nil, err
	}
	pl, err := rn.place(ctx, e, rs, false)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, undo(pl.tgt, pl.restore)) }()

	// The export has the whole run's phases; the stream has the steps of
	// a sweep and the responses by status, which the export does not.
	export, stream := filepath.Join(dir, "summary.json"), filepath.Join(dir, "points.json")
	kc := k6CommandFor(infoOf(pl.tgt), script, "--quiet", "--no-color", "--no-usage-report",
		"--summary-export", export, "--out", "json="+stream)
	enter, err := genEnter(pl.tgt, kc.Netns)
	if err != nil {
		return nil, err
	}
	meter, lm := startRunMeter(pl.tgt), startLoadMeter(rn.cpus)
	cpu, series, err := rn.execK6(ctx, kc, pl.gen, enter)
	timeline := lm.end()
	if err != nil {
		return nil, err
	}
	runCPU := meter.percent(time.Duration((cpu.UserSeconds + cpu.SystemSeconds) * float64(time.Second)))
	settle(ctx, pl.tgt)
	view, err := pl.tgt.serverView(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	ps, err := pl.tgt.pathStats(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	extra := diagnose.Extra{
		Server:   diagnose.ServerFromView(&view, "the fake server's /_mb/stats"),
		CPU:      cpu.Percent,
		Executor: rs.Load.ExecutorName(),
	}
	rd := diagnose.Reader{Open: diagnose.ModelOf(extra.Executor) == diagnose.ModelOpen}
	obs, err := rd.ReadFile(ctx, export)
	if err != nil {
		return nil, fmt.Errorf("k6's summary export: %w", err)
	}
	obs.Apply(extra)
	doc := docOf(obs)
	kr = &record.K6Run{RunResult: &record.RunResult{Spec: rs, PathCfg: e.PathFor(rs), Pinned: pl.pinned, RunCPU: runCPU, Load: timeline}}
	if record.FindRateLimit(kr.PathCfg) != nil { // read now: the stream may go with dir
		sp, err := k6Span(stream)
		kr.Arrivals = func() (record.ArrivalSpan, error) { return sp, err }
	}
	srd := rd
	if isSweep(rs) {
		if srd.Schedule, srd.Origin, err = k6Schedule(rs, stream); err != nil {
			return nil, fmt.Errorf("k6's NDJSON stream: %w", err)
		}
		kr.Origin = srd.Origin
	}
	sobs, err := srd.ReadFile(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("k6's NDJSON stream: %w", err)
	}
	sobs.Apply(extra)
	if isSweep(rs) {
		doc.Steps = stepsOf(sobs.Steps)
		if !srd.Origin.IsZero() {
			for i := range doc.Steps {
				st := &doc.Steps[i]
				at := func(ms float64) time.Time { return srd.Origin.Add(time.Duration(ms * float64(time.Millisecond))) }
				st.GeneratorCPU = stepCPU(series, at(st.StartMs), at(st.EndMs), cpu.Cores)
			}
		}
	}
	doc.Statuses, doc.Errors = sobs.Statuses, sobs.Errors
	rep := diagnose.Analyze(sobs, diagnose.DefaultConfig())
	kr.Stream, kr.StreamUnshown, kr.Unshown = &rep, unshownBy(sobs), unshownBy(obs)
	if isSweep(rs) {
		kr.StepReport = &rep // the steps are the stream's
	}
	doc.Server, doc.GeneratorCPU = &view, cpu
	if ps != nil {
		if doc.Stages, err = json.Marshal(ps); err != nil {
			return nil, err
		}
	}
	kr.Doc, kr.Server, kr.Path = doc, view, ps
	kr.Result = &load.Result{Requests: obs.Requests, Failed: obs.Failed, Dropped: obs.Dropped, Errors: sobs.Errors, Executor: extra.Executor}
	kr.Report = diagnose.Analyze(obs, diagnose.DefaultConfig())
	kr.Elapsed = rn.now().Sub(t0)
	return kr, nil
}

// k6Dir is where a run's k6 files go: K6Dir/<id>-<n>/, kept, or a
// temporary directory.
func (rn *Runner) k6Dir(e *experiment.Experiment, rs *experiment.RunSpec) (string, error) {
	if rn.K6Dir == "" {
		return os.MkdirTemp("", "middlebench-k6-"+e.ID+"-*")
	}
	i := slices.IndexFunc(e.Runs, func(r experiment.RunSpec) bool { return r.Name == rs.Name })
	dir := filepath.Join(rn.K6Dir, fmt.Sprintf("%s-%d", e.ID, i+1))
	return dir, os.MkdirAll(dir, 0o755)
}

// execK6 runs k6 as kc says, started through enter (in the wire's
// generator namespace, when there is one) and pinned to cpus when given,
// and returns its CPU use. A cancelled ctx interrupts k6 as Ctrl-C does,
// so it still writes its files.
func (rn *Runner) execK6(ctx context.Context, kc k6Command, cpus []int, enter func(func() error) error) (*metrics.CPUUsage, []cpuSample, error) {
	args := kc.Args
	cmd := exec.CommandContext(ctx, rn.K6, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	start := cmd.Start
	if len(cpus) > 0 {
		start = func() error { return startPinned(cmd, cpus) }
	}
	if err := enter(start); err != nil {
		return nil, nil, fmt.Errorf("k6: %w", err)
	}
	sctx, stop := context.WithCancel(ctx)
	samples := make(chan []cpuSample, 1)
	go sampleCPU(sctx, cmd.Process.Pid, samples)
	err := cmd.Wait()
	wall := time.Since(t0)
	stop()
	series := <-samples
	var ee *exec.ExitError
	// 99: thresholds failed — k6 ran and wrote its files.
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 99) {
		return nil, nil, fmt.Errorf("k6 %s: %w\n%s", strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	cores := len(cpus)
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	st := cmd.ProcessState
	u := &metrics.CPUUsage{UserSeconds: st.UserTime().Seconds(), SystemSeconds: st.SystemTime().Seconds(), Cores: cores}
	u.Percent = 100 * (u.UserSeconds + u.SystemSeconds) / wall.Seconds() / float64(cores)
	return u, series, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// docOf turns what a reader made of k6's file into the results
// document's shape, so the same metric references read both generators.
func docOf(o *diagnose.Observation) *metrics.Document {
	return &metrics.Document{Metrics: windowMetrics(&o.Window), Statuses: o.Statuses, Errors: o.Errors}
}

func stepsOf(steps []diagnose.Step) []metrics.Step {
	out := make([]metrics.Step, len(steps))
	for i, s := range steps {
		out[i] = metrics.Step{Name: s.Name, StartMs: s.StartMs, EndMs: s.EndMs, VUs: int(s.VUs), Rate: s.Rate,
			Metrics: windowMetrics(&s.Window), Statuses: s.Statuses}
	}
	return out
}

func windowMetrics(w *diagnose.Window) map[string]metrics.Metric {
	ms := map[string]metrics.Metric{}
	// k6 always writes the request phases (zeros are a phase nobody spent
	// time in); the server's trends exist only where it reported them.
	phase := func(name string, s diagnose.Stat) {
		ms[name] = metrics.Metric{Type: "trend", Contains: "time", Values: map[string]float64{
			"avg": s.Avg, "min": s.Min, "med": s.Med, "max": s.Max, "p(90)": s.P90, "p(95)": s.P95, "p(99)": s.P99}}
	}
	trend := func(name string, s diagnose.Stat) {
		if s.Present() {
			phase(name, s)
		}
	}
	p := &w.Phases
	phase("http_req_blocked", p.Blocked)
	phase("http_req_connecting", p.Connecting)
	phase("http_req_tls_handshaking", p.TLS)
	phase("http_req_sending", p.Sending)
	phase("http_req_waiting", p.Waiting)
	phase("http_req_receiving", p.Receiving)
	phase("http_req_duration", p.Duration)
	trend("server_time", p.Server)
	trend("server_queue", p.ServerQueue)
	counter := func(name string, n int64) {
		v := map[string]float64{"count": float64(n)}
		if w.Seconds > 0 {
			v["rate"] = float64(n) / w.Seconds
		}
		ms[name] = metrics.Metric{Type: "counter", Values: v}
	}
	counter("http_reqs", w.Requests)
	counter("iterations", w.Iterations)
	counter("dropped_iterations", w.Dropped)
	counter("data_sent", w.DataSent)
	counter("data_received", w.DataReceived)
	failed := 0.0
	if w.Requests > 0 {
		failed = float64(w.Failed) / float64(w.Requests)
	}
	ms["http_req_failed"] = metrics.Metric{Type: "rate", Values: map[string]float64{"rate": failed, "passes": float64(w.Failed), "fails": float64(w.Requests - w.Failed)}}
	return ms
}

// runAllK6 replays each run of x with k6, then checks k6's results against
// the same expectations, and the expected codes on the stream's report too.
func (rn *Runner) runAllK6(ctx context.Context, x *record.ExperimentResult) error {
	var runs []*record.RunResult
	for i := range x.Exp.Runs {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted before run %q with k6", x.Exp.Runs[i].Name)
		}
		if x.Exp.Runs[i].Generators > 1 {
			continue // the engine split over processes (generators.go): k6 would be one generator
		}
		kr, err := rn.runK6(ctx, x.Exp, &x.Exp.Runs[i])
		if kr != nil {
			x.K6 = append(x.K6, kr)
			runs = append(runs, kr.RunResult)
		}
		if err != nil {
			return fmt.Errorf("run %q with k6: %w", x.Exp.Runs[i].Name, err)
		}
	}
	record.CheckAll(runs)
	for _, kr := range x.K6 {
		if kr.Stream == nil {
			continue
		}
		for _, c := range record.CheckCodes(kr.Spec.Expect, kr.Stream.Codes(), kr.StreamUnshown) {
			c = record.Judge(c, kr.RunDisturbance())
			c.What = "stream: " + c.What
			if c.Failed() {
				c.Msg = "on k6's NDJSON stream: " + c.Msg
			}
			kr.Checks = append(kr.Checks, c)
		}
		// A sweep's steps are the stream's (the export has none): say so.
		for i := range kr.Checks {
			if strings.HasPrefix(kr.Checks[i].What, "step ") {
				kr.Checks[i].What = "stream: " + kr.Checks[i].What
			}
		}
	}
	return nil
}

// fileNames are how the reports name the files k6 writes.
var fileNames = map[diagnose.Format]string{
	diagnose.FormatSummaryExport: "k6's summary export",
	diagnose.FormatNDJSON:        "k6's NDJSON stream",
}

// unshownBy is what o, read from one of k6's files, cannot show.
func unshownBy(o *diagnose.Observation) *record.Unshown {
	codes := diagnose.Unshown(o)
	if len(codes) == 0 {
		return nil
	}
	name, ok := fileNames[o.Format]
	if !ok {
		name = string(o.Format)
	}
	return &record.Unshown{File: name, Codes: codes}
}
