// Package console is the terminal front end of a load run: it merges a
// scenario file with flags, prints k6's header, a live progress line and
// the end-of-test summary, writes --summary-export and --out json, and
// turns the outcome into k6's exit statuses (99 failed thresholds, 104 bad
// config, 105 interrupted).
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
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

// Options are `middlebench load`'s inputs once flags are parsed.
type Options struct {
	URL        string       // positional target; overrides the file's url
	ConfigFile string       // --config: a YAML scenario
	Flags      *load.Config // values of the schedule and request flags
	// Changed says whether a flag was given (then its value in Flags wins
	// over the scenario file's).
	Changed func(flag string) bool

	SummaryExport     string
	SummaryMode       string // compact or full
	SummaryTrendStats []string
	SummaryTimeUnit   string
	NoSummary         bool
	Out               []string // "json=FILE[.gz]"
	Progress          bool     // the live line even when stderr is not a terminal
	Quiet             bool     // no header and no progress line

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
	cfg, err := buildConfig(o)
	if err != nil {
		return &ExitError{ExitInvalidConfig, err}
	}
	if err := checkOutputOptions(&o); err != nil {
		return &ExitError{ExitInvalidConfig, err}
	}
	text, maxVUs, maxDur, err := load.Describe(cfg)
	if err != nil {
		return &ExitError{ExitInvalidConfig, err}
	}
	// Open the export before the run, so a bad path costs nothing.
	var export *os.File
	if o.SummaryExport != "" {
		if export, err = os.Create(o.SummaryExport); err != nil {
			return fmt.Errorf("--summary-export: %w", err)
		}
		defer export.Close()
	}
	var jsonOut io.WriteCloser
	jsonPath := ""
	for _, out := range o.Out {
		kind, path, _ := strings.Cut(out, "=")
		if kind == "json" {
			jsonPath = path
		}
	}
	if jsonPath != "" {
		if jsonOut, err = load.OpenJSONOutput(jsonPath); err != nil {
			return err
		}
	}
	if !o.Quiet {
		writeHeader(o.Stdout, cfg, text, maxVUs, maxDur, jsonPath)
	}
	opts := load.Options{Preflight: true, TrendStats: o.SummaryTrendStats, Observer: o.Observer}
	if jsonOut != nil {
		opts.JSON = jsonOut
	}
	tty := IsTerminal(o.Stderr)
	if !o.Quiet && (tty || o.Progress) {
		opts.Progress = progressPrinter(o.Stderr, tty)
	}
	tuneGC()
	res, runErr := load.Run(ctx, cfg, opts)
	if jsonOut != nil {
		if err := jsonOut.Close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("--out json: %w", err)
		}
	}
	if opts.Progress != nil && res != nil {
		// The last line, as k6 ends its progress: the totals, no VU running.
		opts.Progress(load.Progress{Elapsed: res.Duration(), MaxVUs: int(res.Document().Metrics["vus_max"].Values["max"]),
			Requests: res.Requests, Failed: res.Failed, Iterations: res.Iterations, Interrupted: res.Interrupted, Dropped: res.Dropped,
			ReqRate: float64(res.Requests) / max(res.Duration().Seconds(), 1e-9)})
	}
	if opts.Progress != nil && tty {
		fmt.Fprintln(o.Stderr)
	}
	if res == nil {
		if errors.Is(runErr, load.ErrConfig) {
			return &ExitError{ExitInvalidConfig, runErr}
		}
		return runErr
	}
	doc := res.Document()
	doc.State.IsStdErrTTY = tty
	doc.State.IsStdOutTTY = IsTerminal(o.Stdout)
	doc.Options.SummaryTimeUnit = o.SummaryTimeUnit
	if !o.NoSummary {
		if err := metrics.WriteSummary(o.Stdout, doc, metrics.SummaryOptions{Mode: o.SummaryMode, TrendStats: o.SummaryTrendStats,
			TimeUnit: o.SummaryTimeUnit, Scenario: res.Scenario}); err != nil {
			return err
		}
		writeErrorExamples(o.Stdout, res)
	}
	if export != nil {
		if err := writeExport(export, doc); err != nil {
			return err
		}
	}
	switch {
	case runErr != nil:
		return runErr
	case res.Aborted:
		return &ExitError{ExitAborted, fmt.Errorf("test run was interrupted after %s; the summary shows what was measured", res.Duration().Round(time.Millisecond))}
	case res.ThresholdsFailed > 0:
		return &ExitError{ExitThresholds, fmt.Errorf("thresholds on metrics %s have been crossed", failedMetrics(doc))}
	}
	return nil
}

func checkOutputOptions(o *Options) error {
	switch o.SummaryMode {
	case "", "compact", "full":
	default:
		return fmt.Errorf("--summary-mode %q: want compact or full", o.SummaryMode)
	}
	switch o.SummaryTimeUnit {
	case "", "s", "ms", "us":
	default:
		return fmt.Errorf("--summary-time-unit %q: want s, ms or us", o.SummaryTimeUnit)
	}
	for _, s := range o.SummaryTrendStats {
		if _, err := metrics.NewTrend().Stat(s); err != nil {
			return fmt.Errorf("--summary-trend-stats: %w", err)
		}
	}
	for _, out := range o.Out {
		kind, path, ok := strings.Cut(out, "=")
		if kind != "json" || !ok || path == "" {
			return fmt.Errorf("--out %q: want json=FILE (gzipped when FILE ends in .gz)", out)
		}
	}
	return nil
}

func writeExport(f *os.File, d *metrics.Document) error {
	if err := d.Write(f); err != nil {
		return fmt.Errorf("--summary-export %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--summary-export %s: %w", f.Name(), err)
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

// tuneGC trades a few MB of heap for throughput: the engine's live heap
// is small and fixed (trends, per-VU buffers) while net/http allocates
// about 2.5 KB per request, so at the default GOGC the collector runs many
// times a second. 400 measured ≈ +15 % requests/s on 2 cores. A GOGC set in
// the environment wins.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// IsTerminal reports whether w is a terminal (a live progress line is
// rewritten in place there).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
