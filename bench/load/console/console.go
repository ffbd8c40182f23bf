// Package console is the terminal front end of a load run: it merges a
// scenario file (middlebench's or k6's options) with flags, prints k6's
// header, its progress lines and the end-of-test summary, writes
// --summary-export (k6's legacy file), --results (middlebench's document)
// and the --out streams (json, csv), and turns the outcome into k6's exit
// statuses (99 failed thresholds, 104 bad config, 105 interrupted).
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// k6's exit statuses.
const (
	ExitThresholds    = 99
	ExitInvalidConfig = 104
	ExitAborted       = 105
)

// ExitError is an outcome with its exit status.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

func invalid(err error) error { return &ExitError{ExitInvalidConfig, err} }

// Options are `middlebench load`'s inputs once flags are parsed.
type Options struct {
	URL        string       // positional target; overrides the file's url
	ConfigFile string       // --config: middlebench's scenario or k6's options, YAML or JSON
	Flags      *load.Config // values of the schedule and request flags
	// Changed says whether a flag was given (then its value in Flags wins
	// over the scenario file's).
	Changed func(flag string) bool
	Env     map[string]string // -e NAME=VALUE: ${NAME} in the URL, url and headers
	// Environ is the process's environment, for the K6_* variables k6
	// reads its options from (K6_VUS, K6_DURATION, …); nil: none.
	Environ []string
	Tags    map[string]string // --tag NAME=VALUE: on every sample

	SummaryExport     string // k6's legacy --summary-export file
	Results           string // middlebench's results document
	ResultsURL        string // --results-url: PUT the results document there (merge --listen)
	StartURL          string // --start-url: start when it answers 200 (merge --listen's start gate)
	SegmentIndex      *int   // --execution-segment-index: the segment is this one of the sequence
	SummaryMode       string // compact, full or disabled
	SummaryTrendStats []string
	SummaryTimeUnit   string
	NoSummary         bool
	NoThresholds      bool
	NoThresholdExit   bool     // --no-threshold-exit: thresholds reported, a crossed one does not exit 99 (a segment's: the merge judges)
	Out               []string // json[=FILE|-], csv[=FILE|-]
	HTTPDebug         string   // "", "headers" or "full"
	Progress          bool     // the progress even when it would not be shown
	Quiet             bool     // no header and no progress
	Verbose           bool     // say what is done beside the results (-v)

	Observer load.Observer // sees each request (the live dashboard); may be nil

	Stdout, Stderr io.Writer // default os.Stdout, os.Stderr
}

// Run runs the load test the options describe.
func Run(ctx context.Context, o Options) error {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if err := checkOutputOptions(&o); err != nil {
		return invalid(err)
	}
	cfg, err := buildConfig(o)
	if err != nil {
		return invalid(err)
	}
	if o.Changed != nil && o.Changed("vus") && cfg.VUs == 0 {
		fmt.Fprintln(o.Stderr, "middlebench: warning: --vus 0 is ignored, it only works in conjunction with --iterations, --duration or --stage (as in k6)")
	}
	lines, maxVUs, maxDur, err := load.Describe(cfg)
	if err != nil {
		return invalid(err)
	}
	outs, err := openOutputs(o)
	if err != nil {
		return err
	}
	if !o.Quiet {
		writeHeader(o.Stdout, cfg, lines, maxVUs, maxDur, outs.describe())
	}
	stats := o.SummaryTrendStats
	if stats == nil {
		stats = cfg.SummaryTrendStats
	}
	opts := load.Options{TrendStats: stats, JSON: outs.json, CSV: outs.csv, Observer: o.Observer}
	if o.HTTPDebug != "" {
		opts.HTTPDebug, opts.HTTPDebugBody = o.Stderr, o.HTTPDebug == "full"
	}
	tty := IsTerminal(o.Stdout)
	var prog *progress
	if !o.Quiet || o.Progress {
		prog = newProgress(o.Stdout, tty, maxDur, cfg)
		opts.Progress = prog.update
	}
	if o.Verbose {
		fmt.Fprintf(o.Stderr, "middlebench: %d scenario(s), up to %d VUs, at most %s; outputs: %s\n", len(lines), maxVUs, maxDur, outs.describe())
	}
	if err := waitStart(ctx, o); err != nil {
		_ = outs.close()
		return err
	}
	defer load.TuneGC()()
	res, runErr := load.Run(ctx, cfg, opts)
	if err := outs.close(); err != nil && runErr == nil {
		runErr = err
	}
	if res == nil {
		if errors.Is(runErr, load.ErrConfig) {
			return invalid(runErr)
		}
		return runErr
	}
	if prog != nil {
		prog.done(res)
	}
	if res.Iterations == 0 && res.Interrupted > 0 {
		// k6's warning: requests cut by the end are in no metric.
		fmt.Fprintf(o.Stderr, "middlebench: warning: no iteration fully finished (%d interrupted, their requests uncounted); consider a longer duration or gracefulStop, or a shorter --timeout\n", res.Interrupted)
	}
	doc := res.Document()
	doc.State.IsStdErrTTY = IsTerminal(o.Stderr)
	doc.State.IsStdOutTTY = tty
	doc.Options.SummaryTimeUnit = summaryTimeUnit(o, cfg)
	if o.NoThresholds {
		clearThresholds(doc)
		res.ThresholdsFailed = 0
	}
	if o.SummaryMode != "disabled" && !o.NoSummary {
		if err := metrics.WriteSummary(o.Stdout, doc, metrics.SummaryOptions{Mode: o.SummaryMode, TrendStats: stats,
			TimeUnit: doc.Options.SummaryTimeUnit, Scenario: res.Scenario}); err != nil {
			return err
		}
		writeErrorExamples(o.Stdout, res)
	}
	if err := writeFiles(o, doc, stats); err != nil {
		return err
	}
	if err := sendResults(ctx, o, doc); err != nil {
		return err
	}
	switch {
	case runErr != nil:
		return runErr
	case res.AbortedByThreshold:
		return &ExitError{ExitThresholds, fmt.Errorf("thresholds on metrics %s were crossed; at least one has abortOnFail enabled, stopping test prematurely", failedMetrics(doc))}
	case res.Aborted:
		return &ExitError{ExitAborted, fmt.Errorf("test run was aborted after %s (interrupted); the summary shows what was measured", res.Duration().Round(time.Millisecond))}
	case res.ThresholdsFailed > 0 && !o.NoThresholdExit:
		return &ExitError{ExitThresholds, fmt.Errorf("thresholds on metrics %s have been crossed", failedMetrics(doc))}
	}
	return nil
}

func summaryTimeUnit(o Options, cfg *load.Config) string {
	if o.SummaryTimeUnit != "" {
		return o.SummaryTimeUnit
	}
	return cfg.SummaryTimeUnit
}

// clearThresholds is --no-thresholds: k6 neither evaluates nor reports them.
func clearThresholds(d *metrics.Document) {
	for name, m := range d.Metrics {
		m.Thresholds = nil
		d.Metrics[name] = m
	}
}

func checkOutputOptions(o *Options) error {
	switch o.SummaryMode {
	case "", "compact", "full", "disabled":
	default:
		return fmt.Errorf("--summary-mode %q: want compact or full (or disabled: no summary)", o.SummaryMode)
	}
	switch o.SummaryTimeUnit {
	case "", "s", "ms", "us":
	default:
		return fmt.Errorf("--summary-time-unit %q: want s, ms or us", o.SummaryTimeUnit)
	}
	switch o.HTTPDebug {
	case "", "headers", "full":
	default:
		return fmt.Errorf("--http-debug %q: want headers (the default) or full", o.HTTPDebug)
	}
	for _, s := range o.SummaryTrendStats {
		if _, err := timing.NewTrend().Stat(s); err != nil {
			return fmt.Errorf("--summary-trend-stats: %w", err)
		}
	}
	if err := checkURL("--results-url", o.ResultsURL); err != nil {
		return err
	}
	if err := checkURL("--start-url", o.StartURL); err != nil {
		return err
	}
	for _, out := range o.Out {
		if _, _, err := parseOut(out); err != nil {
			return err
		}
	}
	return nil
}

func failedMetrics(d *metrics.Document) string {
	var names []string
	for name, m := range d.Metrics {
		for _, v := range m.Thresholds {
			if !v.OK {
				names = append(names, "'"+name+"'")
				break
			}
		}
	}
	sortStrings(names)
	return strings.Join(names, ", ")
}

// IsTerminal reports whether w is a terminal (progress is redrawn in
// place there, and printed a block per second otherwise, as k6 does).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
