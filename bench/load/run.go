package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// Options are what a caller adds to a Config for one run.
type Options struct {
	// Progress, if set, is called about every ProgressEvery (default 1s)
	// from a goroutine of its own while the run lasts.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// JSON, if set, receives k6's --out json stream (NDJSON Metric and
	// Point lines). See OpenJSONOutput for files and gzip.
	JSON io.Writer
	// CSV, if set, receives k6's --out csv rows (header first).
	CSV io.Writer
	// HTTPDebug, if set, receives every request and response head as k6's
	// --http-debug logs them; HTTPDebugBody adds the bodies (=full).
	HTTPDebug     io.Writer
	HTTPDebugBody bool
	// TrendStats are stats (k6's summaryTrendStats) the document carries
	// beside avg, min, med, max, p(90), p(95), p(99).
	TrendStats []string
	// OnStart, if set, is called with the run's start (Result.Start: t=0 of
	// the schedule) just before the first VU starts, e.g. to compute the
	// windows a rate limiter will count.
	OnStart func(start time.Time)
	// Dial, if set, creates the VUs' connections (with the dialer's
	// timeout and keep-alive applied by the caller): the harness dials from
	// the generator's network namespace of a wire. Nil dials as k6 does.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Observer, if set, sees each finished request (see observer.go).
	Observer Observer
	// netHTTPOnly sends every request through net/http (tests compare the
	// lean client with it).
	netHTTPOnly bool
}

// Progress is a live view of a running test.
type Progress struct {
	Elapsed     time.Duration
	Planned     time.Duration // the schedule's length, without gracefulStop (0 when count-bound)
	VUs, MaxVUs int
	Requests    int64
	Failed      int64
	Iterations  int64
	Interrupted int64
	Dropped     int64
	ReqRate     float64 // requests per second over the last interval
	Scenarios   []ScenarioProgress
}

// ScenarioProgress is one scenario's part of a Progress.
type ScenarioProgress struct {
	Name        string
	Executor    string
	Start       time.Duration // startTime
	Planned     time.Duration // its schedule's length (maxDuration when count-bound)
	VUs, MaxVUs int
	Iterations  int64
	Rate        float64 // arrivals per second (open model)
}

// Describe says what the config will do, in k6's words, one line per
// scenario ("3 looping VUs for 5s (gracefulStop: 30s)"), its VUs at most
// and its longest duration including the graceful stop.
func Describe(cfg *Config) (lines []ScenarioText, maxVUs int, maxDuration time.Duration, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, 0, 0, err
	}
	scs, err := prepare(cfg)
	if err != nil {
		return nil, 0, 0, err
	}
	ts, err := compileThresholds(cfg)
	if err != nil {
		return nil, 0, 0, err
	}
	if _, err := submetricsFor(scs, ts); err != nil {
		return nil, 0, 0, err
	}
	for _, s := range scs {
		lines = append(lines, ScenarioText{Name: s.cfg.scenario(), Text: s.describe()})
		maxVUs += s.plan.maxVUs
		maxDuration = max(maxDuration, s.start+s.plan.regular+s.plan.graceful)
	}
	return lines, maxVUs, maxDuration, nil
}

// Run runs the load described by cfg until its schedule ends (plus the
// graceful stop) or ctx is cancelled, and returns what was measured. A
// cancelled run still returns its Result (Interrupted is set) with a nil
// error: what was measured until then is valid. The scenarios of a config
// with several run at once, each from its startTime.
func Run(ctx context.Context, cfg *Config, opts Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	thresholds, err := compileThresholds(cfg)
	if err != nil {
		return nil, err
	}
	for _, s := range opts.TrendStats {
		if _, err := timing.NewTrend().Stat(s); err != nil {
			return nil, fmt.Errorf("%w: summaryTrendStats: %w", ErrConfig, err)
		}
	}
	scs, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	subs, err := submetricsFor(scs, thresholds)
	if err != nil {
		return nil, err
	}
	abort := newAborter(ctx, thresholds, time.Now())
	ctx = abort.ctx
	defer abort.stop()

	out := make(chan *batch, 256)
	pool := newBatches()
	start := time.Now()
	clk := clock{base: start}
	var debug *httpDebug
	if opts.HTTPDebug != nil {
		debug = &httpDebug{w: opts.HTTPDebug, body: opts.HTTPDebugBody}
	}
	var es engines
	for i, s := range scs {
		e := &engine{scen: uint8(i), cfg: s.cfg, mix: s.mix, out: out, batches: pool, clk: clk,
			serverMetric: s.cfg.serverTimingMetric(), debug: debug, dial: opts.Dial, observer: opts.Observer}
		if debug == nil && !opts.netHTTPOnly {
			e.h1Addr = s.mix.h1Addr()
		}
		es = append(es, e)
	}
	var jout *jsonOutput
	if opts.JSON != nil || opts.CSV != nil {
		jout = newJSONOutput(opts.JSON, opts.CSV, scs)
	}
	jout.setBase(start)
	p := runPlan(scs)
	// Each step ends at its bound; what ends after the last one (the
	// ramp-down or graceful stop) counts in the run but in no step, so a
	// step's rate is what its own window saw.
	var bounds []int64
	for _, s := range p.steps {
		bounds = append(bounds, int64(s.end))
	}
	jout.withSubmetrics(subs)
	jout.withThresholds(thresholds)
	col := newCollector(pool, bounds, subs, jout)
	col.abort = abort
	col.perScenario(len(scs))
	colDone := make(chan struct{})
	go func() { col.run(out); close(colDone) }()

	cpu0 := readRusage()
	aux, stopAux := context.WithCancel(ctx)
	var wg sync.WaitGroup
	gaugeDone := make(chan struct{})
	gaugeEm := &emitter{out: out, pool: pool}
	go es.sampleGauges(aux, clk, gaugeEm, gaugeDone)
	stepCPU := make([]rusage, len(p.steps))
	wg.Add(1)
	go func() { defer wg.Done(); sampleStepCPU(aux, start, p.steps, stepCPU) }()
	if opts.Progress != nil {
		wg.Add(1)
		go func() { defer wg.Done(); reportProgress(aux, scs, es, start, p, opts) }()
	}
	if opts.OnStart != nil {
		opts.OnStart(start)
	}
	runScenarios(ctx, scs, es, start)
	end := time.Now()
	cpu1 := readRusage()
	stopAux()
	wg.Wait()
	<-gaugeDone
	close(out) // every producer has returned and flushed
	<-colDone
	interrupted := ctx.Err() != nil && !abort.fired()
	res := newResult(opts, scs, p, es, col, thresholds, start, end, cpu0, cpu1, stepCPU, interrupted)
	res.AbortedByThreshold = abort.fired()
	observeResult(opts.Observer, res)
	if jout != nil {
		if err := jout.close(); err != nil {
			return res, fmt.Errorf("write --out: %w", err)
		}
	}
	return res, nil
}

func submetricsFor(scs []*scenarioRun, ts []metrics.Threshold) ([]*submetric, error) {
	names := []string{expectedDuration}
	if len(scs) == 1 && len(scs[0].mix.targets) > 1 {
		for _, t := range scs[0].mix.targets {
			names = append(names, fmt.Sprintf("%s{name:%s}", mDuration, t.name))
		}
	}
	for _, t := range ts {
		if _, tags, _ := metrics.SplitSubmetric(t.Metric); len(tags) > 0 {
			names = append(names, t.Metric)
		}
	}
	var subs []*submetric
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		s, err := newSubmetric(n, scs)
		if err != nil {
			return nil, fmt.Errorf("%w: thresholds: %w", ErrConfig, err)
		}
		subs = append(subs, s)
	}
	return subs, nil
}

// sampleStepCPU reads the process's CPU time at the end of each step.
func sampleStepCPU(ctx context.Context, start time.Time, steps []stepSpec, out []rusage) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for i, s := range steps {
		if !sleepUntil(t, start.Add(s.end), ctx.Done()) {
			return
		}
		out[i] = readRusage()
	}
}

func reportProgress(ctx context.Context, scs []*scenarioRun, e engines, start time.Time, p plan, opts Options) {
	every := opts.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var lastReqs int64
	last := start
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			req, failed, iters, intr := e.counts()
			rate := 0.0
			if dt := now.Sub(last).Seconds(); dt > 0 {
				rate = float64(req-lastReqs) / dt
			}
			lastReqs, last = req, now
			opts.Progress(Progress{Elapsed: now.Sub(start), Planned: p.regular, VUs: int(e.active()), MaxVUs: e.allocated(),
				Requests: req, Failed: failed, Iterations: iters, Interrupted: intr, Dropped: e.drops(), ReqRate: rate,
				Scenarios: scenarioProgress(scs, e)})
		}
	}
}

func scenarioProgress(scs []*scenarioRun, es engines) []ScenarioProgress {
	out := make([]ScenarioProgress, len(scs))
	for i, s := range scs {
		_, _, iters, _ := es[i].counts()
		out[i] = ScenarioProgress{Name: s.cfg.scenario(), Executor: s.cfg.ExecutorName(), Start: s.start, Planned: s.plan.regular,
			VUs: int(es[i].active.Load()), MaxVUs: s.plan.maxVUs, Iterations: iters, Rate: s.plan.rate}
	}
	return out
}
