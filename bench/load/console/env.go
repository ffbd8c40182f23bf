package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/bench/load"
)

// k6Env are the K6_* environment variables k6 reads for the options the
// engine has, each set onto a Config as its flag would, keyed by the
// flag's name (so that a flag given wins over it, as in k6: options file
// < environment < flags).
var k6Env = []struct {
	name, flag string
	set        func(c *load.Config, v string) error
}{
	{"K6_VUS", "vus", func(c *load.Config, v string) (err error) { c.VUs, err = strconv.Atoi(v); return }},
	{"K6_DURATION", "duration", func(c *load.Config, v string) error { return c.Duration.Set(v) }},
	{"K6_ITERATIONS", "iterations", func(c *load.Config, v string) (err error) {
		c.Iterations, err = strconv.ParseInt(v, 10, 64)
		return
	}},
	{"K6_STAGES", "stage", func(c *load.Config, v string) error {
		c.Stages = nil
		return StageFlag{Stages: &c.Stages}.Set(v)
	}},
	{"K6_USER_AGENT", "user-agent", func(c *load.Config, v string) error { c.UserAgent = &v; return nil }},
	{"K6_NO_CONNECTION_REUSE", "no-connection-reuse", func(c *load.Config, v string) (err error) {
		c.NoConnectionReuse, err = strconv.ParseBool(v)
		return
	}},
	{"K6_NO_VU_CONNECTION_REUSE", "no-vu-connection-reuse", func(c *load.Config, v string) (err error) {
		c.NoVUConnectionReuse, err = strconv.ParseBool(v)
		return
	}},
	{"K6_INSECURE_SKIP_TLS_VERIFY", "insecure-skip-tls-verify", func(c *load.Config, v string) (err error) {
		c.InsecureSkipTLSVerify, err = strconv.ParseBool(v)
		return
	}},
	{"K6_MAX_REDIRECTS", "max-redirects", func(c *load.Config, v string) error {
		n, err := strconv.Atoi(v)
		c.MaxRedirects = &n
		return err
	}},
	{"K6_EXECUTION_SEGMENT", "execution-segment", func(c *load.Config, v string) error { c.ExecutionSegment = v; return nil }},
	{"K6_EXECUTION_SEGMENT_SEQUENCE", "execution-segment-sequence", func(c *load.Config, v string) error {
		c.ExecutionSegmentSequence = v
		return nil
	}},
}

// envLayer reads the K6_* variables of environ into a Config and says
// which flags they stand for.
func envLayer(environ []string) (*load.Config, map[string]bool, error) {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "K6_") {
			vars[k] = v
		}
	}
	c, set := &load.Config{}, map[string]bool{}
	for _, e := range k6Env {
		v, ok := vars[e.name]
		if !ok {
			continue
		}
		if err := e.set(c, v); err != nil {
			return nil, nil, fmt.Errorf("%w: %s=%q: %w", load.ErrConfig, e.name, v, err)
		}
		set[e.flag] = true
	}
	return c, set, nil
}

// overridesSchedule is k6's rule for a higher tier (the environment, the
// flags) over a lower one: a duration, iterations or stages given there
// replace the lower tier's whole schedule, scenarios included; it returns
// whether scenarios were dropped (k6 warns).
func overridesSchedule(dst *load.Config, changed func(string) bool) bool {
	if !changed("duration") && !changed("iterations") && !changed("stage") {
		return false
	}
	dropped := len(dst.Scenarios) > 0
	dst.Duration, dst.Iterations, dst.Stages, dst.Scenarios = 0, 0, nil, nil
	return dropped
}
