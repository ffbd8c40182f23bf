package load

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/buildinfo"
	"github.com/middlebench/middlebench/internal/units"
)

// Executor names, as k6 spells them.
const (
	ConstantVUs         = "constant-vus"
	RampingVUs          = "ramping-vus"
	PerVUIterations     = "per-vu-iterations"
	SharedIterations    = "shared-iterations"
	ConstantArrivalRate = "constant-arrival-rate"
	RampingArrivalRate  = "ramping-arrival-rate"
)

// Defaults, as k6 has them.
const (
	DefaultGracefulStop = 30 * time.Second
	DefaultTimeout      = 60 * time.Second
	DefaultMaxDuration  = 10 * time.Minute // iteration-based executors
	DefaultServerTiming = "app"
	DefaultScenario     = "default"
	DefaultMaxRedirects = 10
	// MaxVUs bounds the VUs of one run (each holds a connection pool and
	// about 20 KB of buffers).
	MaxVUs = 100_000
	// MaxRate bounds an open model's arrivals per second (far above what
	// one process can send: the bound keeps a typo from spinning).
	MaxRate = 10_000_000
)

// Config is one load run: what to request and how to schedule it. It is
// what `middlebench load --config scenario.yaml` decodes (strictly: an
// unknown field is an error naming its line) and what the flags fill; the
// field names are k6's option names. The zero value plus a URL runs one
// iteration with one VU, as k6 does with no options.
type Config struct {
	Scenario string `yaml:"scenario"` // scenario tag (default "default")
	Executor string `yaml:"executor"` // k6 executor; empty: chosen from the fields below as k6's shortcuts do

	// The request, or a weighted mix of requests (one is chosen per iteration).
	URL      string            `yaml:"url"`
	Method   string            `yaml:"method"`
	Headers  map[string]string `yaml:"headers"`
	BodySize units.Size        `yaml:"bodySize"`
	Requests []Request         `yaml:"requests"`

	// Schedule.
	VUs              int             `yaml:"vus"`
	Duration         units.Duration  `yaml:"duration"`
	Iterations       int64           `yaml:"iterations"`
	StartVUs         int             `yaml:"startVUs"`
	Stages           []Stage         `yaml:"stages"`
	Rate             units.Rate      `yaml:"rate"`      // arrivals, open model: "200/s"
	StartRate        float64         `yaml:"startRate"` // ramping-arrival-rate, per timeUnit
	TimeUnit         units.Duration  `yaml:"timeUnit"`  // unit of startRate and arrival-rate stage targets (default 1s)
	PreAllocatedVUs  int             `yaml:"preAllocatedVUs"`
	MaxVUs           int             `yaml:"maxVUs"`
	MaxDuration      units.Duration  `yaml:"maxDuration"` // iteration-based executors (default 10m)
	GracefulStop     *units.Duration `yaml:"gracefulStop"`
	GracefulRampDown *units.Duration `yaml:"gracefulRampDown"`

	// Scale-out, k6's options: this process runs only its segment of the
	// test ("1/4:2/4"), striped over the sequence of all segments
	// ("0,1/4,2/4,3/4,1"; default: the segment and the gaps around it).
	ExecutionSegment         string `yaml:"executionSegment"`
	ExecutionSegmentSequence string `yaml:"executionSegmentSequence"`

	// Request options.
	UserAgent             *string        `yaml:"userAgent"` // default "middlebench/<version>"; "" sends none
	NoConnectionReuse     bool           `yaml:"noConnectionReuse"`
	NoVUConnectionReuse   bool           `yaml:"noVUConnectionReuse"`
	Compress              bool           `yaml:"compress"` // Accept-Encoding: gzip, decompressed while receiving
	Timeout               units.Duration `yaml:"timeout"`  // per request, body included (default 60s)
	InsecureSkipTLSVerify bool           `yaml:"insecureSkipTLSVerify"`
	MaxRedirects          *int           `yaml:"maxRedirects"` // default 10, as k6
	Think                 units.Dist     `yaml:"think"`        // sleep at the end of each iteration
	ClientCPU             units.Duration `yaml:"clientCPU"`    // spin after each response until the ms clock moved on by this (k6's Date.now() loop)

	// DiscardResponseBodies is accepted for k6 scripts' sake: the engine
	// always reads a body to its end and keeps none of it.
	DiscardResponseBodies bool `yaml:"discardResponseBodies"`

	ServerTimingMetric string `yaml:"serverTimingMetric"` // Server-Timing entry read into server_time (default "app")
	// Thresholds in k6 syntax, both forms: http_req_failed: ["rate<0.01",
	// {threshold: "rate<0.05", abortOnFail: true, delayAbortEval: 10s}].
	Thresholds map[string][]ThresholdExpr `yaml:"thresholds"`

	// Tags are added to every sample of the run (k6's options.tags and
	// --tag); in a scenario, to that scenario's samples.
	Tags map[string]string `yaml:"tags"`
	// Scenarios run at once, each with its own executor (k6's scenarios);
	// the shortcuts above (executor, vus, duration, …) are then not allowed.
	Scenarios map[string]*Scenario `yaml:"scenarios"`

	// The summary's options, k6's names; the flags win over them.
	SummaryTrendStats []string `yaml:"summaryTrendStats"`
	SummaryTimeUnit   string   `yaml:"summaryTimeUnit"`
}

// Request is one entry of a weighted mix.
type Request struct {
	Name     string            `yaml:"name"` // the name tag (default: the URL)
	Method   string            `yaml:"method"`
	URL      string            `yaml:"url"`
	Headers  map[string]string `yaml:"headers"`
	BodySize units.Size        `yaml:"bodySize"`
	Weight   float64           `yaml:"weight"` // relative; default 1
}

// Stage is one k6 stage: reach Target (VUs, or arrivals per timeUnit) over
// Duration, linearly.
type Stage struct {
	Duration units.Duration `yaml:"duration"`
	Target   float64        `yaml:"target"`
}

// ParseStage reads the flag form "30s:100".
func ParseStage(s string) (Stage, error) {
	d, t, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Stage{}, fmt.Errorf("stage %q: want DURATION:TARGET such as 30s:100", s)
	}
	dur, err := units.ParseDuration(d)
	if err != nil {
		return Stage{}, fmt.Errorf("stage %q: %w", s, err)
	}
	var target float64
	if _, err := fmt.Sscanf(strings.TrimSpace(t), "%g", &target); err != nil || target < 0 || target != target {
		return Stage{}, fmt.Errorf("stage %q: target %q is not a non-negative number", s, t)
	}
	return Stage{Duration: dur, Target: target}, nil
}

func (s Stage) String() string { return fmt.Sprintf("%s:%g", s.Duration, s.Target) }

// ErrConfig is wrapped by every validation error.
var ErrConfig = errors.New("invalid load config")

func configErr(field, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, a...))
}

// DefaultUserAgent is the engine's User-Agent unless told otherwise.
func DefaultUserAgent() string { return buildinfo.Tool() }

// ExecutorName returns the executor the config runs: Executor when set,
// else k6's shortcut rules (rate → arrival rate, stages → ramping-vus,
// iterations → shared-iterations, duration → constant-vus, nothing → one
// iteration of one VU).
func (c *Config) ExecutorName() string {
	switch {
	case c.Executor != "":
		return c.Executor
	case !c.Rate.IsZero() && len(c.Stages) > 0, c.StartRate > 0 && len(c.Stages) > 0:
		return RampingArrivalRate
	case !c.Rate.IsZero():
		return ConstantArrivalRate
	case len(c.Stages) > 0:
		return RampingVUs
	case c.Iterations > 0:
		return SharedIterations
	case c.Duration > 0:
		return ConstantVUs
	}
	return PerVUIterations
}

// gracefulStop and the other accessors apply k6's defaults.
func (c *Config) gracefulStop() time.Duration {
	if c.GracefulStop == nil {
		return DefaultGracefulStop
	}
	return c.GracefulStop.D()
}

func (c *Config) gracefulRampDown() time.Duration {
	if c.GracefulRampDown == nil {
		return DefaultGracefulStop
	}
	return c.GracefulRampDown.D()
}

func (c *Config) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout.D()
}

func (c *Config) timeUnit() time.Duration {
	if c.TimeUnit == 0 {
		return time.Second
	}
	return c.TimeUnit.D()
}

// maxDuration bounds the iteration-based executors; a duration given with
// iterations is read as maxDuration, as k6's shortcut does.
func (c *Config) maxDuration() time.Duration {
	if c.MaxDuration == 0 {
		if c.Duration > 0 {
			return c.Duration.D()
		}
		return DefaultMaxDuration
	}
	return c.MaxDuration.D()
}

func (c *Config) vus() int {
	if c.VUs == 0 {
		return 1
	}
	return c.VUs
}

func (c *Config) scenario() string {
	if c.Scenario == "" {
		return DefaultScenario
	}
	return c.Scenario
}

func (c *Config) serverTimingMetric() string {
	if c.ServerTimingMetric == "" {
		return DefaultServerTiming
	}
	return c.ServerTimingMetric
}

func (c *Config) maxRedirects() int {
	if c.MaxRedirects == nil {
		return DefaultMaxRedirects
	}
	return *c.MaxRedirects
}

func (c *Config) userAgent() string {
	if c.UserAgent == nil {
		return DefaultUserAgent()
	}
	return *c.UserAgent
}

// mix returns the requests of the run: Requests, or the single URL.
func (c *Config) mix() []Request {
	if len(c.Requests) > 0 {
		return c.Requests
	}
	return []Request{{Method: c.Method, URL: c.URL, Headers: c.Headers, BodySize: c.BodySize, Weight: 1}}
}
