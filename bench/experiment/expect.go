package experiment

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Expect is what one run must show: finding codes that must and must not
// appear, and numeric bands on its metrics.
type Expect struct {
	Codes  []string `yaml:"codes"`  // every one of these must be found
	Absent []string `yaml:"absent"` // none of these may be found
	Bands  []Band   `yaml:"bands"`
	// AllowFailures lets requests fail (429s, 403s): without it every
	// request must succeed, so a run whose timings come from errors
	// cannot pass its bands unnoticed.
	AllowFailures bool `yaml:"allowFailures"`
}

// Band bounds one metric of a run. Bounds are expressions over numbers and
// durations (durations in ms), written relative to what the experiment
// configured through its vars: min: ${delay}, max: ${delay} + 30ms; or to
// another measurement of the same run: max: @{server server_time avg};
// or to another run: near: no delay, within: 10%; or to another run plus
// what this one adds: near: at 0 ms, plus: 2 * ${rtt}, within: 0.5ms (the
// other run, measured in the same minutes, carries what both share).
type Band struct {
	Metric    string `yaml:"metric"`    // see bench/record/lookup.go: "http_req_blocked p(95)", "server requests", "statuses 429", …
	Min       string `yaml:"min"`       // lowest value allowed
	Max       string `yaml:"max"`       // highest value allowed
	Equals    string `yaml:"equals"`    // exactly this, ± tolerance
	Tolerance string `yaml:"tolerance"` // with equals: an expression, or a percentage "2%"
	Near      string `yaml:"near"`      // another run of the experiment: the same metric there
	Within    string `yaml:"within"`    // with near: "10%" or an expression ("5ms")
	Plus      string `yaml:"plus"`      // with near: an expression added to the other run's value ("2 * ${rtt}")
	Why       string `yaml:"why"`       // the reason, one sentence, for the report
}

// MeasuredBound reports whether a bound of the band is a measurement.
func (b Band) MeasuredBound() bool {
	return b.Near != "" || strings.Contains(b.Min+b.Max+b.Equals, "@{")
}

// Validate checks a band's shape before anything runs.
func (b Band) Validate() error {
	if strings.TrimSpace(b.Metric) == "" {
		return fmt.Errorf("band: metric is required")
	}
	forms := 0
	if b.Min != "" || b.Max != "" {
		forms++
	}
	if b.Equals != "" {
		forms++
	}
	if b.Near != "" {
		forms++
	}
	switch {
	case forms == 0:
		return fmt.Errorf("band on %s: give min and/or max, equals (+ tolerance), or near (+ within)", b.Metric)
	case forms > 1:
		return fmt.Errorf("band on %s: min/max, equals and near are alternatives; use one", b.Metric)
	case b.Near != "" && b.Within == "":
		return fmt.Errorf("band on %s: near needs within (e.g. 10%% or 5ms)", b.Metric)
	case b.Tolerance != "" && b.Equals == "":
		return fmt.Errorf("band on %s: tolerance goes with equals", b.Metric)
	case b.Within != "" && b.Near == "":
		return fmt.Errorf("band on %s: within goes with near", b.Metric)
	case b.Plus != "" && b.Near == "":
		return fmt.Errorf("band on %s: plus goes with near", b.Metric)
	}
	if b.Plus != "" {
		if _, err := EvalExpr(b.Plus); err != nil {
			return fmt.Errorf("band on %s: plus: %w", b.Metric, err)
		}
	}
	for _, e := range []string{b.Min, b.Max, b.Equals} {
		if e != "" {
			// References are measured later; any number stands in for them here.
			if _, err := EvalExpr(runRef.ReplaceAllString(e, "1")); err != nil {
				return fmt.Errorf("band on %s: %w", b.Metric, err)
			}
		}
	}
	for _, e := range []string{b.Tolerance, b.Within} {
		if e != "" {
			if _, _, err := evalMargin(e); err != nil {
				return fmt.Errorf("band on %s: %w", b.Metric, err)
			}
		}
	}
	return nil
}

// runRef is a measurement of the same run inside a bound: @{server requests}.
var runRef = regexp.MustCompile(`@\{([^}]*)\}`)

// Refs are the references to the same run inside the band's bounds, as
// written between @{ and }.
func (b Band) Refs() []string {
	var out []string
	for _, m := range runRef.FindAllStringSubmatch(b.Min+" "+b.Max+" "+b.Equals, -1) {
		out = append(out, m[1])
	}
	return out
}

// WithRefs replaces each @{ref} in expr with the run's value of ref, as
// lookup answers it; the first error lookup returns is returned.
func WithRefs(expr string, lookup func(ref string) (float64, error)) (string, error) {
	var firstErr error
	out := runRef.ReplaceAllStringFunc(expr, func(m string) string {
		v, err := lookup(strings.TrimSpace(runRef.FindStringSubmatch(m)[1]))
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	})
	return out, firstErr
}

// evalMargin reads "10%" (relative) or an expression (absolute).
func evalMargin(s string) (v float64, relative bool, err error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 {
			return 0, true, fmt.Errorf("percentage %q: want a non-negative number before %%", s)
		}
		return f / 100, true, nil
	}
	f, err := EvalExpr(t)
	if err == nil && f < 0 {
		err = fmt.Errorf("margin %q must not be negative", s)
	}
	return f, false, err
}

// Margin is a validated margin (tolerance, within) around ref: a
// percentage of |ref|, or the expression's value.
func Margin(s string, ref float64) float64 {
	v, rel, _ := evalMargin(s) // validated
	if rel {
		return math.Abs(ref) * v
	}
	return v
}
