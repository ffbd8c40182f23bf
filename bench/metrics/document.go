package metrics

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/middlebench/middlebench/internal/timing"
)

// Metric types and contents, with k6's spelling.
const (
	TypeTrend   = "trend"
	TypeCounter = "counter"
	TypeRate    = "rate"
	TypeGauge   = "gauge"

	ContainsTime    = "time"
	ContainsData    = "data"
	ContainsDefault = "default"
)

// Metric is one entry of the results document's "metrics", as in k6's
// handleSummary data: trend values are in ms (avg, min, med, max, p(N));
// counters have count and rate; rates have rate, passes, fails; gauges have
// value, min, max.
type Metric struct {
	Type       string             `json:"type"`
	Contains   string             `json:"contains"`
	Values     map[string]float64 `json:"values"`
	Thresholds map[string]Verdict `json:"thresholds,omitempty"`
}

// Verdict is a threshold's outcome, as handleSummary writes it ({"ok": false}
// means the threshold failed).
type Verdict struct {
	OK bool `json:"ok"`
}

// TrendMetric renders a Trend with the given stats (timing.FullTrendStats() if nil).
func TrendMetric(t *timing.Trend, stats []string) (Metric, error) {
	if stats == nil {
		stats = timing.FullTrendStats()
	}
	v, err := t.Values(stats)
	return Metric{Type: TypeTrend, Contains: ContainsTime, Values: v}, err
}

// Document is the results document: what `middlebench load --results`
// writes, what the harness stores per run, and what the analyzer reads.
// Everything but Metrics is optional, so a k6 handleSummary file decodes
// into it too.
type Document struct {
	Metrics map[string]Metric `json:"metrics"`
	State   State             `json:"state"`
	Options Options           `json:"options"`

	// middlebench's own keys.
	Run          *RunInfo         `json:"run,omitempty"`
	GeneratorCPU *CPUUsage        `json:"generator_cpu,omitempty"`
	Statuses     map[string]int64 `json:"statuses,omitempty"`    // "200": 36, "429": 535
	Errors       map[string]int64 `json:"errors,omitempty"`      // error class → count: reset, timeout, refused, tls, …
	ErrorCodes   map[string]int64 `json:"error_codes,omitempty"` // k6 error code → count ("1212": refused dial; 1000+status for HTTP ≥ 400)
	Steps        []Step           `json:"steps,omitempty"`       // per stage / rate step of a sweep
	// Scenarios holds each scenario's own metrics when the run had several.
	Scenarios  map[string]ScenarioResult `json:"scenarios,omitempty"`
	Server     *timing.ServerView        `json:"server,omitempty"`     // the origin's own view (the APM)
	Stages     json.RawMessage           `json:"stages,omitempty"`     // middlebox counters, as the proxy reports them
	Histograms map[string]string         `json:"histograms,omitempty"` // metric → Trend.Encode, for exact merges
}

// State is k6's "state" key.
type State struct {
	TestRunDurationMs float64 `json:"testRunDurationMs"`
	IsStdOutTTY       bool    `json:"isStdOutTTY"`
	IsStdErrTTY       bool    `json:"isStdErrTTY"`
}

// Options is k6's "options" key.
type Options struct {
	SummaryTrendStats []string `json:"summaryTrendStats,omitempty"`
	SummaryTimeUnit   string   `json:"summaryTimeUnit"`
	NoColor           bool     `json:"noColor"`
}

// RunInfo says what load was asked for, so the analyzer can reason about
// the model (closed VUs or open arrival rate) without guessing.
type RunInfo struct {
	Tool        string  `json:"tool"`     // "middlebench/0.1.0"
	Executor    string  `json:"executor"` // k6 executor name
	URL         string  `json:"url,omitempty"`
	VUs         int     `json:"vus,omitempty"`
	MaxVUs      int     `json:"maxVUs,omitempty"`
	Rate        float64 `json:"rate,omitempty"` // arrivals per second, open model
	DurationMs  float64 `json:"durationMs,omitempty"`
	Iterations  int64   `json:"iterations,omitempty"`
	Start       string  `json:"start,omitempty"`       // RFC 3339 with ns
	Interrupted bool    `json:"interrupted,omitempty"` // stopped by Ctrl-C
	Scenario    string  `json:"scenario,omitempty"`    // the scenario tag
	// The execution segment this process ran and the sequence it is one of
	// (k6's form, "1/4:1/2" and "0,1/4,1/2,3/4,1"); empty: the whole test.
	ExecutionSegment         string `json:"executionSegment,omitempty"`
	ExecutionSegmentSequence string `json:"executionSegmentSequence,omitempty"`
	// MaxDurationSkewMs is the largest |http_req_duration − (end − start
	// of sending)| over every request, the second measured on its own:
	// 0 unless a response began before its request was fully written.
	MaxDurationSkewMs float64 `json:"maxDurationSkewMs"`
}

// CPUUsage is the generator process's own CPU use over the run.
type CPUUsage struct {
	UserSeconds   float64 `json:"userSeconds"`
	SystemSeconds float64 `json:"systemSeconds"`
	Cores         int     `json:"cores"`   // CPUs the process could use
	Percent       float64 `json:"percent"` // of all those cores: 100 = every core busy all run
	// Of a generator pinned to its CPUs (the harness's generator
	// children): what other processes took of those CPUs meanwhile, and
	// what the hypervisor stole, in percent as Percent. With them, a
	// generator that fell behind at half its CPU is seen to have had no
	// more than half.
	OthersPercent float64 `json:"othersPercent,omitempty"`
	StolenPercent float64 `json:"stolenPercent,omitempty"`
}

// Busy is how busy the generator's CPUs were: its own share, other
// processes' and the stolen (Percent alone when those are not known).
func (c *CPUUsage) Busy() float64 { return c.Percent + c.OthersPercent + c.StolenPercent }

// Step is one step of a sweep: a ramping-vus stage or an arrival-rate step.
type Step struct {
	Name         string             `json:"name"`
	StartMs      float64            `json:"startMs"` // since the run began
	EndMs        float64            `json:"endMs"`
	VUs          int                `json:"vus,omitempty"`  // target VUs of the step
	Rate         float64            `json:"rate,omitempty"` // target arrivals per second
	Metrics      map[string]Metric  `json:"metrics"`
	Statuses     map[string]int64   `json:"statuses,omitempty"`
	Server       *timing.ServerView `json:"server,omitempty"`
	GeneratorCPU *CPUUsage          `json:"generator_cpu,omitempty"`
	Histograms   map[string]string  `json:"histograms,omitempty"`
}

// ScenarioResult is one scenario's metrics (k6's SCENARIO section).
type ScenarioResult struct {
	Executor   string            `json:"executor"`
	Metrics    map[string]Metric `json:"metrics"`
	Histograms map[string]string `json:"histograms,omitempty"`
}

// Write encodes the document as indented JSON.
func (d *Document) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("write results document: %w", err)
	}
	return nil
}

// Trend decodes the exact histogram of a metric, if the document carries one.
func (d *Document) Trend(name string) (*timing.Trend, bool, error) {
	s, ok := d.Histograms[name]
	if !ok {
		return nil, false, nil
	}
	t, err := timing.DecodeTrend(s)
	if err != nil {
		return nil, true, fmt.Errorf("histogram %q: %w", name, err)
	}
	return t, true, nil
}
