package load

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// Validate checks the config and names the first bad field; with
// scenarios, every scenario as it will run.
func (c *Config) Validate() error {
	for _, st := range c.SummaryTrendStats {
		if _, err := timing.NewTrend().Stat(st); err != nil {
			return configErr("summaryTrendStats", "%v", err)
		}
	}
	switch c.SummaryTimeUnit {
	case "", "s", "ms", "us":
	default:
		return configErr("summaryTimeUnit", "%q: want s, ms or us", c.SummaryTimeUnit)
	}
	if len(c.Scenarios) == 0 {
		return c.validateOne()
	}
	cfgs, _, err := c.Effective()
	if err != nil {
		return err
	}
	for _, e := range cfgs {
		if err := e.validateOne(); err != nil {
			return fmt.Errorf("scenarios.%s: %w", e.Scenario, err)
		}
	}
	if _, err := compileThresholds(c); err != nil {
		return err
	}
	return nil
}

func (c *Config) validateOne() error {
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

// maxBodySize bounds a request body: it is held in memory (generatedBody),
// as k6 holds a script's, once per size.
const maxBodySize = units.Size(1 << 30)

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
	if r.BodySize > maxBodySize {
		name := "bodySize"
		if inMix {
			name = field + ".bodySize"
		}
		return configErr(name, "%s: at most %s (a body is held in memory, as k6 holds a script's)", r.BodySize, maxBodySize)
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
