package console

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/load"
)

// buildConfig is the scenario file (if any) with the given flags on top,
// and the positional URL.
func buildConfig(o Options) (*load.Config, error) {
	if err := refuseScript(o.URL, o.ConfigFile); err != nil {
		return nil, err
	}
	flags := o.Flags
	if flags == nil {
		flags = &load.Config{}
	}
	changed := o.Changed
	if changed == nil {
		changed = func(string) bool { return false }
	}
	env, envSet, err := envLayer(o.Environ)
	if err != nil {
		return nil, err
	}
	envChanged := func(f string) bool { return envSet[f] && !changed(f) }
	var cfg *load.Config
	if o.ConfigFile != "" {
		c, warnings, err := load.LoadOptions(o.ConfigFile)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			if o.Stderr == nil {
				break
			}
			fmt.Fprintf(o.Stderr, "middlebench: warning: %s\n", w)
		}
		cfg = c
		for _, tier := range []struct {
			name    string
			src     *load.Config
			changed func(string) bool
		}{{"env", env, envChanged}, {"cli", flags, changed}} {
			if overridesSchedule(cfg, tier.changed) && o.Stderr != nil {
				fmt.Fprintf(o.Stderr, "middlebench: warning: %q level configuration overrode scenarios configuration entirely (as k6 does)\n", tier.name)
			}
			overlay(cfg, tier.src, tier.changed)
		}
	} else {
		c := *flags
		cfg = &c
		overlay(cfg, env, envChanged)
	}
	if o.URL != "" {
		if len(cfg.Requests) > 0 {
			return nil, fmt.Errorf("%w: url: the scenario has a requests mix; give no URL argument", load.ErrConfig)
		}
		cfg.URL = o.URL
	}
	if len(o.Tags) > 0 {
		tags := map[string]string{}
		for k, v := range cfg.Tags {
			tags[k] = v
		}
		for k, v := range o.Tags {
			tags[k] = v
		}
		cfg.Tags = tags
	}
	if err := applySegmentIndex(cfg, o.SegmentIndex); err != nil {
		return nil, err
	}
	if err := load.ExpandEnv(cfg, o.Env); err != nil {
		return nil, err
	}
	if err := explicitZeros(cfg, changed); err != nil {
		return nil, err
	}
	return cfg, nil
}

// explicitZeros gives --vus 0, --duration 0s and --iterations 0 k6's
// meaning: the config is invalid, except --vus 0 alone, which k6 ignores
// (with a warning) and runs one iteration of one VU.
func explicitZeros(cfg *load.Config, changed func(string) bool) error {
	if changed("duration") && cfg.Duration == 0 {
		return fmt.Errorf("%w: duration: should be more than 0 (k6: for an infinite duration use the externally-controlled executor, which middlebench does not have)", load.ErrConfig)
	}
	if changed("iterations") && cfg.Iterations == 0 {
		return fmt.Errorf("%w: iterations: the number of iterations (0) can't be less than the number of VUs", load.ErrConfig)
	}
	if changed("vus") && cfg.VUs == 0 && (cfg.Duration > 0 || cfg.Iterations > 0 || len(cfg.Stages) > 0) {
		return fmt.Errorf("%w: vus: the number of VUs must be more than 0", load.ErrConfig)
	}
	return nil
}

// overlay copies onto dst the fields whose flag was given.
func overlay(dst, src *load.Config, changed func(string) bool) {
	set := func(flag string, apply func()) {
		if changed(flag) {
			apply()
		}
	}
	set("scenario", func() { dst.Scenario = src.Scenario })
	set("executor", func() { dst.Executor = src.Executor })
	set("method", func() { dst.Method = src.Method })
	set("header", func() {
		if dst.Headers == nil {
			dst.Headers = map[string]string{}
		}
		for k, v := range src.Headers {
			dst.Headers[k] = v
		}
	})
	set("body-size", func() { dst.BodySize = src.BodySize })
	set("vus", func() { dst.VUs = src.VUs })
	set("duration", func() { dst.Duration = src.Duration })
	set("iterations", func() { dst.Iterations = src.Iterations })
	set("stage", func() { dst.Stages = src.Stages })
	set("rate", func() { dst.Rate = src.Rate })
	set("time-unit", func() { dst.TimeUnit = src.TimeUnit })
	set("pre-allocated-vus", func() { dst.PreAllocatedVUs = src.PreAllocatedVUs })
	set("max-vus", func() { dst.MaxVUs = src.MaxVUs })
	set("execution-segment", func() { dst.ExecutionSegment = src.ExecutionSegment })
	set("execution-segment-sequence", func() { dst.ExecutionSegmentSequence = src.ExecutionSegmentSequence })
	set("graceful-stop", func() { dst.GracefulStop = src.GracefulStop })
	set("graceful-ramp-down", func() { dst.GracefulRampDown = src.GracefulRampDown })
	set("user-agent", func() { dst.UserAgent = src.UserAgent })
	set("no-connection-reuse", func() { dst.NoConnectionReuse = src.NoConnectionReuse })
	set("no-vu-connection-reuse", func() { dst.NoVUConnectionReuse = src.NoVUConnectionReuse })
	set("compress", func() { dst.Compress = src.Compress })
	set("timeout", func() { dst.Timeout = src.Timeout })
	set("insecure-skip-tls-verify", func() { dst.InsecureSkipTLSVerify = src.InsecureSkipTLSVerify })
	set("max-redirects", func() { dst.MaxRedirects = src.MaxRedirects })
	set("think", func() { dst.Think = src.Think })
	set("client-cpu", func() { dst.ClientCPU = src.ClientCPU })
	set("server-timing-metric", func() { dst.ServerTimingMetric = src.ServerTimingMetric })
	set("threshold", func() {
		if dst.Thresholds == nil {
			dst.Thresholds = map[string][]load.ThresholdExpr{}
		}
		for k, v := range src.Thresholds {
			dst.Thresholds[k] = append(dst.Thresholds[k], v...)
		}
	})
}
