package record

import (
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
)

// RunResult is one run of an experiment: what the engine measured, what
// the server and each stage saw, the diagnosis and the checks.
type RunResult struct {
	Spec    *experiment.RunSpec
	Result  *load.Result
	Doc     *metrics.Document
	Server  timing.ServerView
	Path    *proxy.PathStats
	Report  diagnose.Report
	Checks  []Check
	PathCfg *proxy.PathConfig // the path it went through (nil: straight at the server)
	Pinned  string            // what was pinned where, or empty
	Elapsed time.Duration
	// Arrivals is when the generator sent the run's requests, read when a
	// band needs it (derived fixedWindowPassed); nil when not recorded.
	Arrivals func() (ArrivalSpan, error)
	// Unshown is what the file the Report was read from cannot show
	// (k6's summary export: a sweep's steps); nil when it shows all.
	Unshown *Unshown
	// StepReport is the report whose steps "step … outside" reads, when
	// not Report's (k6: the stream's; its export has no steps).
	StepReport *diagnose.Report
	// RunCPU is the share of the machine's CPUs the generator and its
	// target used together over the generator's run (see bench's
	// runMeter); NaN when not measured.
	RunCPU float64
	// Load is how the machine's CPUs went during the run (see
	// Disturbance); Origin is when its steps' times count from.
	Load   *LoadTimeline
	Origin time.Time
}

// ExperimentResult is every run of one experiment.
type ExperimentResult struct {
	Exp     *experiment.Experiment
	Runs    []*RunResult
	K6      []*K6Run    // the same runs with real k6, when asked
	Fair    []FairRound // runs with a phase out of tolerance, re-measured by both generators alike
	Err     error       // an experiment that could not run at all, or was interrupted
	Elapsed time.Duration
	// Remeasured says, per earlier attempt, what failed while the machine
	// was busy and made the harness measure again.
	Remeasured []string
}

// K6Run is one run replayed with real k6 as the generator, through the
// same server and path as the engine's: k6's figures in the harness's
// shape (checked against the same expectations), and the analyzer's
// reports on k6's summary export and, for a sweep, on its NDJSON stream.
type K6Run struct {
	*RunResult                  // Report is the export's
	Stream     *diagnose.Report // the NDJSON stream's
	// StreamUnshown is what the stream cannot show (nil: it shows all).
	StreamUnshown *Unshown
}

// FairRound is one run re-measured by both generators under the same
// conditions.
type FairRound struct {
	Run     string
	Eng     *RunResult
	K6      *K6Run
	K6First bool      // k6 ran first in this round
	Load    [2]string // the machine's load average before and after
}

// ArrivalSpan is when a run's requests set out, as the generator that ran
// recorded each one: the first and the last request's start of sending
// (its end less http_req_duration). A limiter decides when a request
// reaches its box, on loopback a fraction of a millisecond later; the box
// keeps no time for the requests it passes, so this is as near to its
// arrivals as the harness sees, for the engine and for k6 alike.
type ArrivalSpan struct {
	First, Last time.Time
	Requests    int64
	Source      string // which record it comes from
}

// FairRoundsN is how many paired rounds re-measure a run: odd, so each
// median is a round's figure, and the smallest that outvotes one disturbed
// round. It bounds bench --k6's extra time: at most FairRoundsN times both
// generators' run time for each run with a figure out of tolerance.
const FairRoundsN = 3
