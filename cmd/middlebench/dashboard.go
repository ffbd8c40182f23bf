package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/middlebench/middlebench/bench"
	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/proxy"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/dashboard"
	"github.com/spf13/cobra"
)

// dashFlags are the live dashboard's flags, the same on every command that
// serves one.
type dashFlags struct {
	addr        string
	report      string
	allowRemote bool
	linger      time.Duration
	serverStats string
	stages      string
}

// add registers --dashboard and its companions on cmd.
func (d *dashFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&d.addr, "dashboard", "", "serve a live dashboard on this address, e.g. 127.0.0.1:26000 (loopback only unless --dashboard-allow-remote)")
	f.StringVar(&d.report, "dashboard-report", "", "at the end, save the dashboard as one self-contained HTML file")
	f.BoolVar(&d.allowRemote, "dashboard-allow-remote", false, "let --dashboard listen beyond loopback (a class on the LAN)")
	f.DurationVar(&d.linger, "dashboard-linger", 0, "keep the dashboard up this long after the run ends (Ctrl-C stops it sooner)")
	f.StringVar(&d.stages, "dashboard-stages", "", "a proxy's admin /stats URL: the dashboard shows the path's stage counters beside the load, e.g. http://127.0.0.1:26091/stats")
	f.StringVar(&d.serverStats, "dashboard-server-stats", "", "the fake server's /_mb/stats URL: the dashboard shows the server's own view beside the load, e.g. http://127.0.0.1:26080/_mb/stats")
}

// liveDash is a started dashboard; its zero value (no flags) does nothing.
type liveDash struct {
	flags *dashFlags
	d     *dashboard.Dashboard
	stop  context.CancelFunc
	out   io.Writer
}

// start serves a dashboard when asked; a nil *dashboard.Dashboard comes
// back when neither --dashboard nor --dashboard-report is set.
func (f *dashFlags) start(ctx context.Context, out io.Writer, title string, src dashboard.Sources) (*liveDash, error) {
	ld := &liveDash{flags: f, out: out}
	if f.addr == "" && f.report == "" {
		return ld, nil
	}
	ctx, ld.stop = context.WithCancel(context.WithoutCancel(ctx))
	if f.serverStats != "" && src.Server == nil {
		src.Server = dashboard.PollServer(f.serverStats)
	}
	if f.stages != "" && src.Stages == nil {
		src.Stages = dashboard.PollStages(f.stages)
	}
	ld.d = dashboard.New(title, src)
	if f.addr != "" {
		url, err := ld.d.Serve(ctx, f.addr, f.allowRemote)
		if err != nil {
			ld.stop()
			return nil, err
		}
		fmt.Fprintf(out, "dashboard: %s (report: %sreport)\n", url, url)
	}
	go ld.d.Run(ctx)
	return ld, nil
}

// Dashboard is the running dashboard, or nil.
func (ld *liveDash) Dashboard() *dashboard.Dashboard { return ld.d }

// finish marks the run ended with the analyzer's findings, saves the
// report, lingers if asked (until ctx ends), and stops the page.
func (ld *liveDash) finish(ctx context.Context, findings []diagnose.Finding) error {
	if ld == nil || ld.d == nil {
		return nil
	}
	defer ld.stop()
	ld.d.Finish(findings)
	if ld.flags.report != "" {
		if err := ld.d.WriteReport(ld.flags.report); err != nil {
			return fmt.Errorf("--dashboard-report: %w", err)
		}
		fmt.Fprintf(ld.out, "dashboard report: %s\n", ld.flags.report)
	}
	if ld.flags.addr != "" && ld.flags.linger > 0 {
		fmt.Fprintf(ld.out, "dashboard: the run ended; the page stays up for %s (Ctrl-C to stop)\n", ld.flags.linger)
		t := time.NewTimer(ld.flags.linger)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return nil
}

// aroundLoad runs a load (run) with the dashboard fed by the engine.
func (f *dashFlags) aroundLoad(ctx context.Context, out io.Writer, o *console.Options, run func() error) error {
	agg := &dashboard.Aggregator{}
	title := "load " + o.URL
	ld, err := f.start(ctx, out, title, dashboard.Sources{Load: agg, Findings: dashboard.LiveFindings(agg, time.Now(), o.Flags, nil)})
	if err != nil {
		return err
	}
	if ld.d != nil {
		o.Observer = agg
	}
	runErr := run()
	return errors.Join(runErr, ld.finish(ctx, dashboard.FinalFindings(agg.Result(), nil)))
}

// aroundProxy runs a path with the dashboard showing its stages' counters.
func (f *dashFlags) aroundProxy(ctx context.Context, out io.Writer, o proxy.RunOptions) error {
	var ld *liveDash
	var startErr error
	o.Started = func(p *proxy.Path) {
		ld, startErr = f.start(ctx, out, "proxy "+p.URL(), dashboard.Sources{Stages: func() any { return p.Stats() }})
	}
	err := proxy.Run(ctx, o)
	return errors.Join(startErr, err, ld.finish(ctx, nil))
}

// aroundReplay replays experiments with the dashboard fed by every run's
// requests; each run's findings and path counters appear as it ends.
func (f *dashFlags) aroundReplay(ctx context.Context, out io.Writer, o *bench.Options, run func() error) error {
	agg := &dashboard.Aggregator{}
	var mu sync.Mutex
	var findings []diagnose.Finding
	var stages any
	ld, err := f.start(ctx, out, "experiments", dashboard.Sources{Load: agg,
		Findings: func() []diagnose.Finding { mu.Lock(); defer mu.Unlock(); return slices.Clone(findings) },
		Stages:   func() any { mu.Lock(); defer mu.Unlock(); return stages }})
	if err != nil {
		return err
	}
	if ld.d != nil {
		o.Observer = agg
		o.OnRun = func(experiment string, r *record.RunResult) {
			mu.Lock()
			defer mu.Unlock()
			for _, fd := range r.Report.Findings {
				fd.Summary = experiment + " / " + r.Spec.Name + ": " + fd.Summary
				findings = append(findings, fd)
			}
			if r.Path != nil {
				stages = r.Path
			}
		}
	}
	runErr := run()
	mu.Lock()
	final := slices.Clone(findings)
	mu.Unlock()
	return errors.Join(runErr, ld.finish(ctx, final))
}
