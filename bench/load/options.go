package load

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/middlebench/middlebench/internal/units"
)

// Scenario is one entry of k6's `scenarios` map: an executor with its own
// schedule, started startTime after the run begins, its samples tagged
// scenario=<key> plus Tags. The request options not given in the entry are
// the top level's; a scenario may also name its own url or requests (the
// request is middlebench's "exec function").
type Scenario struct {
	Config    `yaml:",inline"`
	StartTime units.Duration    `yaml:"startTime"`
	Exec      string            `yaml:"exec"` // only "default" (the scenario's request): middlebench runs no script
	Env       map[string]string `yaml:"env"`  // expands ${NAME} in the scenario's url and headers
}

// ThresholdExpr is one threshold of a metric: k6's string form
// "p(95)<500" or its object form {threshold, abortOnFail, delayAbortEval}.
type ThresholdExpr struct {
	Threshold      string         `yaml:"threshold"`
	AbortOnFail    bool           `yaml:"abortOnFail"`
	DelayAbortEval units.Duration `yaml:"delayAbortEval"`
}

// UnmarshalYAML accepts both of k6's forms.
func (t *ThresholdExpr) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*t = ThresholdExpr{Threshold: n.Value}
		return nil
	}
	type plain ThresholdExpr
	var p plain
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a threshold such as \"p(95)<500\" or {threshold: \"p(95)<500\", abortOnFail: true}", n.Line)
	}
	if err := decodeStrict(n, &p); err != nil {
		return err
	}
	if p.Threshold == "" {
		return fmt.Errorf("line %d: threshold: missing", n.Line)
	}
	*t = ThresholdExpr(p)
	return nil
}

// ThresholdsOf turns k6's string-only thresholds into Config.Thresholds.
func ThresholdsOf(m map[string][]string) map[string][]ThresholdExpr {
	out := make(map[string][]ThresholdExpr, len(m))
	for k, exprs := range m {
		for _, e := range exprs {
			out[k] = append(out[k], ThresholdExpr{Threshold: e})
		}
	}
	return out
}

// k6OnlyOptions are k6 options middlebench has no use for: `k6 inspect`
// prints every one of them, as null when unset, so null (or an object of
// nulls) is accepted; a value is refused with the reason.
var k6OnlyOptions = map[string]string{
	"paused":                  "there is no REST API to resume a run",
	"noSetup":                 "there is no setup() to skip",
	"setupTimeout":            "there is no setup()",
	"noTeardown":              "there is no teardown() to skip",
	"teardownTimeout":         "there is no teardown()",
	"rps":                     "use an arrival-rate executor",
	"dns":                     "the system resolver is used",
	"batch":                   "there is no http.batch()",
	"batchPerHost":            "there is no http.batch()",
	"httpDebug":               "use the --http-debug flag",
	"tlsCipherSuites":         "Go's defaults are used",
	"tlsVersion":              "Go's defaults are used",
	"tlsAuth":                 "client certificates are not supported",
	"throw":                   "there is no script to throw in",
	"blacklistIPs":            "no address filter",
	"blockHostnames":          "no hostname filter",
	"hosts":                   "no host overrides",
	"minIterationDuration":    "not supported",
	"ext":                     "no cloud output",
	"systemTags":              "every k6 system tag is always written",
	"metricSamplesBufferSize": "samples are batched internally",
	"noCookiesReset":          "no cookie jar",
	"cloud":                   "no cloud output",
	"console":                 "no console",
	"localIPs":                "no source-address selection",
	"linger":                  "the run ends when it ends",
	"noUsageReport":           "no usage report is ever sent",
}

// stripK6Only removes, from a top-level options mapping and each scenario,
// keys whose value is null (k6 inspect's "unset") and k6-only options that
// are unset; it refuses a k6-only option that has a value.
func stripK6Only(n *yaml.Node, top bool) error {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if allNull(v) {
			continue
		}
		if why, only := k6OnlyOptions[k.Value]; only && top {
			return fmt.Errorf("%w: line %d: %s: k6 option not supported by middlebench (%s)", ErrConfig, k.Line, k.Value, why)
		}
		if k.Value == "rate" && v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float") {
			// k6's rate is a number per timeUnit; middlebench's "N/period".
			v.Value, v.Tag = v.Value+"/"+timeUnitOf(n), "!!str"
		}
		if k.Value == "scenarios" && top && v.Kind == yaml.MappingNode {
			for j := 1; j < len(v.Content); j += 2 {
				if err := stripK6Only(v.Content[j], false); err != nil {
					return err
				}
			}
		}
		kept = append(kept, k, v)
	}
	n.Content = kept
	return nil
}

// timeUnitOf is the mapping's timeUnit (k6's default 1s).
func timeUnitOf(n *yaml.Node) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "timeUnit" && n.Content[i+1].Kind == yaml.ScalarNode && n.Content[i+1].Tag != "!!null" {
			return n.Content[i+1].Value
		}
	}
	return "1s"
}

func allNull(n *yaml.Node) bool {
	switch {
	case n.Kind == yaml.ScalarNode:
		return n.Tag == "!!null"
	case n.Kind == yaml.MappingNode && len(n.Content) > 0:
		for i := 1; i < len(n.Content); i += 2 {
			if !allNull(n.Content[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// scenarioNames lists the scenarios in a stable order (by startTime, then
// name), the order their VUs are numbered and their header lines printed.
func (c *Config) scenarioNames() []string {
	names := make([]string, 0, len(c.Scenarios))
	for n := range c.Scenarios {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := c.Scenarios[names[i]], c.Scenarios[names[j]]
		if a.StartTime != b.StartTime {
			return a.StartTime < b.StartTime
		}
		return names[i] < names[j]
	})
	return names
}

// Effective returns the configs the run executes, one per scenario: the
// top level itself when it has no scenarios; otherwise each scenario's
// schedule with the top level's request options where the scenario gives
// none, tagged with its name.
func (c *Config) Effective() ([]*Config, []units.Duration, error) {
	if len(c.Scenarios) == 0 {
		return []*Config{c}, []units.Duration{0}, nil
	}
	if err := c.checkScenarioTop(); err != nil {
		return nil, nil, err
	}
	var out []*Config
	var starts []units.Duration
	for _, name := range c.scenarioNames() {
		s := c.Scenarios[name]
		field := "scenarios." + name
		if s == nil {
			return nil, nil, configErr(field, "empty scenario: give at least an executor")
		}
		if err := s.check(field); err != nil {
			return nil, nil, err
		}
		e := s.Config
		e.Scenario = name
		inherit(&e, c)
		if len(s.Env) > 0 {
			if err := expandEnv(&e, s.Env, field); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, &e)
		starts = append(starts, s.StartTime)
	}
	return out, starts, nil
}

func (c *Config) checkScenarioTop() error {
	for _, f := range []struct {
		set  bool
		name string
	}{{c.Executor != "", "executor"}, {c.VUs != 0, "vus"}, {c.Duration != 0, "duration"}, {c.Iterations != 0, "iterations"},
		{len(c.Stages) > 0, "stages"}, {!c.Rate.IsZero(), "rate"}, {c.Scenario != "", "scenario"}} {
		if f.set {
			return configErr(f.name, "the shortcut cannot be combined with scenarios: move it into a scenario")
		}
	}
	return nil
}

func (s *Scenario) check(field string) error {
	if s.Exec != "" && s.Exec != "default" {
		return configErr(field+".exec", "%q is a function of the script, and the engine runs no script: a scenario's only function is \"default\", one request (its url) or a mix (its requests) per iteration; to run the script itself through a path: middlebench k6 EXPERIMENT.yaml -- run SCRIPT.js", s.Exec)
	}
	if s.StartTime < 0 {
		return configErr(field+".startTime", "must not be negative")
	}
	for _, f := range []struct {
		set  bool
		name string
	}{{len(s.Scenarios) > 0, "scenarios"}, {len(s.Thresholds) > 0, "thresholds"}, {len(s.SummaryTrendStats) > 0, "summaryTrendStats"},
		{s.SummaryTimeUnit != "", "summaryTimeUnit"}, {s.Scenario != "", "scenario"}} {
		if f.set {
			return configErr(field+"."+f.name, "a top-level option: not allowed inside a scenario")
		}
	}
	if s.Executor == "" {
		return configErr(field+".executor", "missing: k6 needs an executor per scenario")
	}
	return nil
}

// inherit fills the request options the scenario left unset from top.
func inherit(e, top *Config) {
	if e.URL == "" && len(e.Requests) == 0 {
		e.URL, e.Requests, e.Method, e.BodySize = top.URL, top.Requests, top.Method, top.BodySize
		if e.Headers == nil {
			e.Headers = top.Headers
		}
	}
	if e.UserAgent == nil {
		e.UserAgent = top.UserAgent
	}
	if e.MaxRedirects == nil {
		e.MaxRedirects = top.MaxRedirects
	}
	e.NoConnectionReuse = e.NoConnectionReuse || top.NoConnectionReuse
	e.NoVUConnectionReuse = e.NoVUConnectionReuse || top.NoVUConnectionReuse
	e.Compress = e.Compress || top.Compress
	e.InsecureSkipTLSVerify = e.InsecureSkipTLSVerify || top.InsecureSkipTLSVerify
	e.DiscardResponseBodies = e.DiscardResponseBodies || top.DiscardResponseBodies
	if e.Timeout == 0 {
		e.Timeout = top.Timeout
	}
	if e.Think.IsZero() {
		e.Think = top.Think
	}
	if e.ClientCPU == 0 {
		e.ClientCPU = top.ClientCPU
	}
	if e.ServerTimingMetric == "" {
		e.ServerTimingMetric = top.ServerTimingMetric
	}
	tags := map[string]string{}
	for k, v := range top.Tags {
		tags[k] = v
	}
	for k, v := range e.Tags {
		tags[k] = v
	}
	if len(tags) > 0 {
		e.Tags = tags
	}
}

// ExpandEnv replaces ${NAME} (or ${__ENV.NAME}) in the request URLs and header values with
// env's values (k6's __ENV for a run without a script); a name env lacks
// is an error. With scenarios, each scenario's env is env plus its own,
// applied when the scenario's config is built (Effective), so a top-level
// url may name a variable one scenario defines.
func ExpandEnv(c *Config, env map[string]string) error {
	if len(c.Scenarios) == 0 {
		return expandEnv(c, env, "")
	}
	for _, s := range c.Scenarios {
		if s == nil {
			continue
		}
		merged := make(map[string]string, len(env)+len(s.Env))
		for k, v := range env {
			merged[k] = v
		}
		for k, v := range s.Env {
			merged[k] = v
		}
		s.Env = merged
	}
	return nil
}

func expandEnv(c *Config, env map[string]string, field string) error {
	var missing []string
	expand := func(s string) string {
		if !strings.Contains(s, "${") {
			return s
		}
		return expandVars(s, env, &missing)
	}
	c.URL = expand(c.URL)
	c.Headers = expandHeaders(c.Headers, expand)
	reqs := make([]Request, len(c.Requests))
	for i, r := range c.Requests {
		r.URL = expand(r.URL)
		r.Headers = expandHeaders(r.Headers, expand)
		reqs[i] = r
	}
	if len(c.Requests) > 0 {
		c.Requests = reqs
	}
	if len(missing) > 0 {
		if field == "" {
			field = "url"
		}
		return configErr(field, "${%s} is not set: give -e %s=VALUE (or the scenario's env)", missing[0], missing[0])
	}
	return nil
}

func expandHeaders(h map[string]string, expand func(string) string) map[string]string {
	if len(h) == 0 {
		return h
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = expand(v)
	}
	return out
}

// expandVars replaces ${NAME} only (a bare $ stays: URLs may carry one).
func expandVars(s string, env map[string]string, missing *[]string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		// ${__ENV.NAME} is how a script's options write it (a template
		// literal): the same variable as ${NAME}.
		name := strings.TrimPrefix(s[i+2:i+j], "__ENV.")
		v, ok := env[name]
		if !ok {
			*missing = append(*missing, name)
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}
