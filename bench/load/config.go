package load

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/middlebench/middlebench"
	"github.com/middlebench/middlebench/units"
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

	ServerTimingMetric string              `yaml:"serverTimingMetric"` // Server-Timing entry read into server_time (default "app")
	Thresholds         map[string][]string `yaml:"thresholds"`         // k6 syntax: http_req_failed: ["rate<0.01"]
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
func DefaultUserAgent() string { return "middlebench/" + middlebench.Version }

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

// Validate checks the config and names the first bad field.
func (c *Config) Validate() error {
	if len(c.Requests) > 0 && c.URL != "" {
		return configErr("url", "give either url or requests, not both")
	}
	if len(c.Requests) == 0 && c.URL == "" {
		return configErr("url", "no target: give a URL (or a requests mix)")
	}
	if len(c.Requests) > 1<<16-1 {
		return configErr("requests", "%d entries: at most 65535", len(c.Requests))
	}
	for i, r := range c.mix() {
		field := "url"
		if len(c.Requests) > 0 {
			field = fmt.Sprintf("requests[%d]", i)
		}
		if err := validateRequest(r, field, len(c.Requests) > 0); err != nil {
			return err
		}
	}
	if c.VUs < 0 || c.StartVUs < 0 || c.PreAllocatedVUs < 0 || c.MaxVUs < 0 || c.Iterations < 0 || c.StartRate < 0 {
		return configErr("vus", "counts must not be negative")
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"vus", c.VUs}, {"startVUs", c.StartVUs}, {"preAllocatedVUs", c.PreAllocatedVUs}, {"maxVUs", c.MaxVUs}} {
		if f.n > MaxVUs {
			return configErr(f.name, "%d is more than the %d VUs one process runs", f.n, MaxVUs)
		}
	}
	if c.Rate.Per > 0 && c.Rate.N == 0 {
		// Given but zero: it would silently fall back to one looping VU.
		return configErr("rate", "%s starts no iteration: give a positive rate", c.Rate)
	}
	if r := c.Rate.PerSecond(); r > MaxRate {
		return configErr("rate", "%s is more than %g arrivals per second", c.Rate, float64(MaxRate))
	}
	unitRate := float64(time.Second) / float64(c.timeUnit())
	if c.StartRate*unitRate > MaxRate {
		return configErr("startRate", "%g per %s is more than %g arrivals per second", c.StartRate, c.timeUnit(), float64(MaxRate))
	}
	if c.MaxRedirects != nil && *c.MaxRedirects < 0 {
		return configErr("maxRedirects", "must not be negative")
	}
	if c.ClientCPU.D() > time.Minute {
		return configErr("clientCPU", "%s is more than a minute per response", c.ClientCPU)
	}
	if c.ClientCPU.D()%time.Millisecond != 0 {
		return configErr("clientCPU", "%s: whole milliseconds (a spin on the millisecond clock, as a k6 script's Date.now() loop)", c.ClientCPU)
	}
	for i, s := range c.Stages {
		if s.Target < 0 || s.Target != s.Target || s.Target > 1e9 {
			return configErr(fmt.Sprintf("stages[%d].target", i), "must be a number from 0 to 1e9")
		}
	}
	if err := validateSchedule(c); err != nil {
		return err
	}
	if _, err := compileThresholds(c); err != nil {
		return err
	}
	if strings.ContainsAny(c.serverTimingMetric(), ",;= \t\"") {
		return configErr("serverTimingMetric", "%q is not a Server-Timing metric name (a token)", c.ServerTimingMetric)
	}
	return nil
}

func validateRequest(r Request, field string, inMix bool) error {
	if inMix && r.URL == "" {
		return configErr(field+".url", "missing")
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return configErr(field, "%v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return configErr(field, "%q: want an http:// or https:// URL", r.URL)
	}
	if u.Host == "" {
		return configErr(field, "%q has no host", r.URL)
	}
	if r.Weight < 0 || r.Weight != r.Weight {
		return configErr(field+".weight", "must be a non-negative number")
	}
	if m := r.Method; m != "" && strings.ContainsAny(m, " \t\r\n:/") {
		return configErr(field+".method", "%q is not an HTTP method", m)
	}
	for k, v := range r.Headers {
		if k == "" || strings.ContainsAny(k, " \t\r\n:") || strings.ContainsAny(v, "\r\n") {
			return configErr(field+".headers", "%q: %q is not a valid header", k, v)
		}
	}
	return nil
}

func validateSchedule(c *Config) error {
	name := c.ExecutorName()
	need := func(ok bool, field, format string, a ...any) error {
		if ok {
			return nil
		}
		return configErr(field, format, a...)
	}
	forbid := func(set bool, field string) error {
		if set {
			return configErr(field, "not used by the %s executor", name)
		}
		return nil
	}
	var errs []error
	switch name {
	case ConstantVUs:
		errs = append(errs, need(c.Duration > 0, "duration", "constant-vus needs a duration > 0"),
			forbid(len(c.Stages) > 0, "stages"), forbid(!c.Rate.IsZero(), "rate"), forbid(c.Iterations > 0, "iterations"))
	case RampingVUs:
		errs = append(errs, need(len(c.Stages) > 0, "stages", "ramping-vus needs at least one stage"),
			forbid(!c.Rate.IsZero(), "rate"), forbid(c.Iterations > 0, "iterations"), forbid(c.Duration > 0, "duration"))
		for i, s := range c.Stages {
			if s.Target != float64(int(s.Target)) {
				errs = append(errs, configErr(fmt.Sprintf("stages[%d].target", i), "VUs must be a whole number, not %g", s.Target))
			} else if s.Target > MaxVUs {
				errs = append(errs, configErr(fmt.Sprintf("stages[%d].target", i), "%g is more than the %d VUs one process runs", s.Target, MaxVUs))
			}
		}
		errs = append(errs, need(totalStages(c.Stages) > 0, "stages", "the stages last 0s in total"))
	case PerVUIterations, SharedIterations:
		errs = append(errs, forbid(len(c.Stages) > 0, "stages"), forbid(!c.Rate.IsZero(), "rate"))
		if name == SharedIterations && c.Iterations > 0 && c.Iterations < int64(c.vus()) {
			errs = append(errs, configErr("vus", "%d VUs for %d shared iterations: VUs must not exceed iterations", c.vus(), c.Iterations))
		}
	case ConstantArrivalRate:
		errs = append(errs, need(!c.Rate.IsZero(), "rate", "constant-arrival-rate needs a rate such as 200/s"),
			need(c.Duration > 0, "duration", "constant-arrival-rate needs a duration > 0"),
			forbid(len(c.Stages) > 0, "stages"), forbid(c.Iterations > 0, "iterations"))
	case RampingArrivalRate:
		for i, s := range c.Stages {
			if s.Target*float64(time.Second)/float64(c.timeUnit()) > MaxRate {
				errs = append(errs, configErr(fmt.Sprintf("stages[%d].target", i), "%g per %s is more than %g arrivals per second", s.Target, c.timeUnit(), float64(MaxRate)))
			}
		}
		errs = append(errs, need(len(c.Stages) > 0, "stages", "ramping-arrival-rate needs at least one stage"),
			need(totalStages(c.Stages) > 0, "stages", "the stages last 0s in total"),
			forbid(c.Iterations > 0, "iterations"), forbid(c.Duration > 0, "duration"))
	default:
		return configErr("executor", "unknown executor %q: want constant-vus, ramping-vus, per-vu-iterations, shared-iterations, constant-arrival-rate or ramping-arrival-rate", name)
	}
	if name == ConstantArrivalRate || name == RampingArrivalRate {
		if c.MaxVUs > 0 && c.PreAllocatedVUs > c.MaxVUs {
			errs = append(errs, configErr("maxVUs", "%d is below preAllocatedVUs %d", c.MaxVUs, c.PreAllocatedVUs))
		}
		if c.PreAllocatedVUs == 0 && c.MaxVUs == 0 && c.VUs == 0 {
			errs = append(errs, configErr("preAllocatedVUs", "an arrival-rate executor needs preAllocatedVUs (or maxVUs)"))
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func totalStages(st []Stage) time.Duration {
	var d time.Duration
	for _, s := range st {
		d += s.Duration.D()
	}
	return d
}
