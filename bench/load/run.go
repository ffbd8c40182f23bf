package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
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
	// Preflight dials each target once before the run and fails fast when
	// one cannot be reached (the CLI sets it; a harness measuring new
	// connections through a proxy should not).
	Preflight bool
	// TrendStats are stats (k6's summaryTrendStats) the document carries
	// beside avg, min, med, max, p(90), p(95), p(99).
	TrendStats []string
	// OnStart, if set, is called with the run's start (Result.Start: t=0 of
	// the schedule) just before the first VU starts, e.g. to compute the
	// windows a rate limiter will count.
	OnStart func(start time.Time)
	// Observer, if set, sees each finished request (see observer.go).
	Observer Observer
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
}

// ErrUnreachable is returned by a preflight that could not connect.
var ErrUnreachable = errors.New("target unreachable")

// Describe says what the config will do, in k6's words:
// "3 looping VUs for 5s (gracefulStop: 30s)", its VUs at most and its
// longest duration including the graceful stop.
func Describe(cfg *Config) (text string, maxVUs int, maxDuration time.Duration, err error) {
	if err := cfg.Validate(); err != nil {
		return "", 0, 0, err
	}
	x, err := newExecutor(cfg)
	if err != nil {
		return "", 0, 0, err
	}
	p := x.plan()
	return p.text, p.maxVUs, p.regular + p.graceful, nil
}

// Run runs the load described by cfg until its schedule ends (plus the
// graceful stop) or ctx is cancelled, and returns what was measured. A
// cancelled run still returns its Result (Interrupted is set) with a nil
// error: what was measured until then is valid.
func Run(ctx context.Context, cfg *Config, opts Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	thresholds, err := compileThresholds(cfg)
	if err != nil {
		return nil, err
	}
	if opts.Preflight {
		if err := preflight(ctx, cfg); err != nil {
			return nil, err
		}
	}
	for _, s := range opts.TrendStats {
		if _, err := metrics.NewTrend().Stat(s); err != nil {
			return nil, fmt.Errorf("%w: summaryTrendStats: %w", ErrConfig, err)
		}
	}
	m, err := newMix(cfg)
	if err != nil {
		return nil, err
	}
	subs, err := submetricsFor(cfg, m, thresholds)
	if err != nil {
		return nil, err
	}
	x, err := newExecutor(cfg)
	if err != nil {
		return nil, err
	}
	p := x.plan()

	e := &engine{cfg: cfg, mix: m, out: make(chan *batch, 256), batches: newBatches(),
		bodyBlock: newBodyBlock(), serverMetric: cfg.serverTimingMetric(), observer: opts.Observer}
	var out *jsonOutput
	if opts.JSON != nil {
		out = newJSONOutput(opts.JSON, cfg, m)
	}
	start := time.Now()
	e.clk = clock{base: start}
	out.setBase(start)
	// Each step ends at its bound; what ends after the last one (the
	// ramp-down or graceful stop) counts in the run but in no step, so a
	// step's rate is what its own window saw.
	var bounds []int64
	for _, s := range p.steps {
		bounds = append(bounds, int64(s.end))
	}
	col := newCollector(e.batches, bounds, subs, out)
	colDone := make(chan struct{})
	go func() { col.run(e.out); close(colDone) }()

	cpu0 := readRusage()
	aux, stopAux := context.WithCancel(ctx)
	var wg sync.WaitGroup
	gaugeDone := make(chan struct{})
	gaugeEm := &emitter{out: e.out, pool: e.batches}
	go e.sampleGauges(aux, gaugeEm, gaugeDone)
	stepCPU := make([]rusage, len(p.steps))
	wg.Add(1)
	go func() { defer wg.Done(); sampleStepCPU(aux, start, p.steps, stepCPU) }()
	if opts.Progress != nil {
		wg.Add(1)
		go func() { defer wg.Done(); reportProgress(aux, e, start, p, opts) }()
	}
	if opts.OnStart != nil {
		opts.OnStart(start)
	}
	x.run(ctx, e, start)
	end := time.Now()
	cpu1 := readRusage()
	stopAux()
	wg.Wait()
	<-gaugeDone
	close(e.out) // every producer has returned and flushed
	<-colDone
	res := newResult(cfg, opts, x, p, e, col, thresholds, start, end, cpu0, cpu1, stepCPU, ctx.Err() != nil)
	observeResult(opts.Observer, res)
	if out != nil {
		if err := out.close(); err != nil {
			return res, fmt.Errorf("write --out json: %w", err)
		}
	}
	return res, nil
}

func submetricsFor(cfg *Config, m *mix, ts []metrics.Threshold) ([]*submetric, error) {
	names := []string{expectedDuration}
	if len(m.targets) > 1 {
		for _, t := range m.targets {
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
		s, err := newSubmetric(n, m, cfg.scenario())
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

func reportProgress(ctx context.Context, e *engine, start time.Time, p plan, opts Options) {
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
			opts.Progress(Progress{Elapsed: now.Sub(start), Planned: p.regular, VUs: int(e.active.Load()), MaxVUs: e.allocated(),
				Requests: req, Failed: failed, Iterations: iters, Interrupted: intr, Dropped: e.drops.Load(), ReqRate: rate})
		}
	}
}

// preflight dials every distinct target host once.
func preflight(ctx context.Context, cfg *Config) error {
	m, err := newMix(cfg)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	d := net.Dialer{Timeout: 3 * time.Second}
	for _, t := range m.targets {
		host := t.u.Host
		if t.u.Port() == "" {
			port := "80"
			if t.u.Scheme == "https" {
				port = "443"
			}
			host = net.JoinHostPort(t.u.Hostname(), port)
		}
		if seen[host] {
			continue
		}
		seen[host] = true
		c, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrUnreachable, t.u.Redacted(), err)
		}
		c.Close()
	}
	return nil
}
