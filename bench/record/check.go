package record

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/bench/experiment"
)

// metricSource answers a metric reference for one run.
type metricSource interface {
	Lookup(ref string) (float64, error)
}

// Check is the outcome of one expectation.
type Check struct {
	What   string  // "http_req_blocked p(95)" or "finding tls-handshake-slow"
	Value  float64 // measured (NaN for codes)
	Lo, Hi float64 // the band (±Inf when open)
	Band   string  // the band as written, e.g. "300ms .. 300ms + 30ms"
	OK     bool
	Msg    string // what failed, or empty
	// Skipped says why the check was not made: the file the run was read
	// from cannot show it (diagnose.Unshown). A skipped check is neither
	// passed nor failed, and every report shows it as skipped.
	Skipped string
	// Busy says the check failed while the machine was busy (see Judge):
	// not measured rather than failed. Disturbance is its window's.
	Busy        bool
	Disturbance Disturbance
	// Side is the way the machine's load moves the value (see sideOf).
	Side loadSide
	// Relative says the band is itself measured (near another run, or
	// @{…} in a bound: another step's p95, the server's time), so that
	// load can move it either way.
	Relative bool
}

// loadSide is the way other processes' load can move a metric.
type loadSide int

const (
	loadRaises  loadSide = iota // a time: waiting for a CPU only adds to it
	loadLowers                  // work done (requests, iterations, TPS): a starved generator does less
	loadNeither                 // an exact count (statuses, the server's and a stage's counts, failed requests and their rate)
)

// sideOf is the way load moves a band's metric.
func sideOf(metric string) loadSide {
	w := strings.Fields(metric)
	if len(w) >= 2 && w[0] == "step" {
		w = w[2:] // step WHICH …: the metric inside the step
	}
	switch {
	case len(w) == 0:
		return loadRaises
	case w[0] == "tps", (w[0] == "http_reqs" || w[0] == "iterations") && len(w) == 2 && (w[1] == "count" || w[1] == "rate"):
		return loadLowers
	case w[0] == "stage" && len(w) >= 2 && (w[len(w)-2] == "delay" || w[len(w)-2] == "queued"):
		return loadRaises // a stage's time: stage BOX.KIND delay STAT
	case w[0] == "statuses", w[0] == "stage", w[0] == "derived", w[0] == "http_req_failed",
		w[0] == "server" && len(w) >= 2 && (w[1] == "requests" || w[1] == "statuses" || w[1] == "bytesIn" || w[1] == "bytesOut"):
		return loadNeither
	}
	return loadRaises
}

// Failed reports whether the check was made and did not hold on a quiet
// machine (or below its band).
func (c Check) Failed() bool { return !c.OK && c.Skipped == "" && !c.Busy }

// Unshown is what a run's file cannot show: the file's name for a reader
// and, by finding code, why not and which file would (diagnose.Unshown).
type Unshown struct {
	File  string
	Codes map[string]string
}

// skip returns the check of code as skipped, when the file cannot show it.
func (u *Unshown) skip(c Check, code string) (Check, bool) {
	if u == nil {
		return c, false
	}
	why, ok := u.Codes[code]
	if !ok {
		return c, false
	}
	c.OK, c.Msg = false, ""
	c.Skipped = fmt.Sprintf("not shown by %s (%s)", u.File, why)
	return c, true
}

// checkBand evaluates the band against this run, and other runs for near.
func checkBand(b experiment.Band, run metricSource, others map[string]metricSource) Check {
	c := Check{What: b.Metric, Value: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1)}
	fail := func(format string, a ...any) Check {
		c.Msg = fmt.Sprintf(format, a...)
		return c
	}
	v, err := run.Lookup(b.Metric)
	if err != nil {
		return fail("%v", err)
	}
	c.Value = v
	eval := func(e string) (float64, error) {
		x, err := experiment.WithRefs(e, run.Lookup)
		if err != nil {
			return 0, err
		}
		return experiment.EvalExpr(x)
	}
	switch {
	case b.Min != "" || b.Max != "":
		if b.Min != "" {
			if c.Lo, err = eval(b.Min); err != nil {
				return fail("min: %v", err)
			}
		}
		if b.Max != "" {
			if c.Hi, err = eval(b.Max); err != nil {
				return fail("max: %v", err)
			}
		}
		c.Band = orOpen(b.Min, "−∞") + " .. " + orOpen(b.Max, "+∞")
	case b.Equals != "":
		want, err := eval(b.Equals)
		if err != nil {
			return fail("equals: %v", err)
		}
		tol := 0.0
		if b.Tolerance != "" {
			tol = experiment.Margin(b.Tolerance, want)
		}
		c.Lo, c.Hi = want-tol, want+tol
		c.Band = b.Equals
		if b.Tolerance != "" {
			c.Band += " ± " + b.Tolerance
		}
	case b.Near != "":
		other, ok := others[b.Near]
		if !ok {
			return fail("near: no run named %q", b.Near)
		}
		ref, err := other.Lookup(b.Metric)
		if err != nil {
			return fail("near %q: %v", b.Near, err)
		}
		var plus float64
		if b.Plus != "" {
			if plus, err = experiment.EvalExpr(b.Plus); err != nil {
				return fail("plus: %v", err)
			}
		}
		tol := experiment.Margin(b.Within, ref+plus)
		c.Lo, c.Hi = ref+plus-tol, ref+plus+tol
		c.Band = fmt.Sprintf("within %s of run %q (%s)", b.Within, b.Near, FmtNum(ref))
		if b.Plus != "" {
			c.Band += " + " + b.Plus
		}
	}
	c.Side, c.Relative = sideOf(b.Metric), b.MeasuredBound()
	c.OK = v >= c.Lo && v <= c.Hi
	if !c.OK {
		c.Msg = fmt.Sprintf("%s = %s, want %s [%s .. %s]", b.Metric, FmtNum(v), c.Band, FmtNum(c.Lo), FmtNum(c.Hi))
	}
	return c
}

// CheckCodes compares the findings with the expected and forbidden codes.
// A code the run's file cannot show (u; nil for a file that shows all) is
// skipped, not judged: its absence there means nothing.
func CheckCodes(e experiment.Expect, found []string, u *Unshown) []Check {
	var out []Check
	for _, code := range e.Codes {
		c := Check{What: "finding " + code, Value: math.NaN(), Band: "present", OK: slices.Contains(found, code)}
		if sk, ok := u.skip(c, code); ok {
			out = append(out, sk)
			continue
		}
		if !c.OK {
			c.Msg = fmt.Sprintf("finding %s expected, not found (found: %s)", code, strings.Join(found, ", "))
		}
		out = append(out, c)
	}
	for _, code := range e.Absent {
		c := Check{What: "finding " + code, Value: math.NaN(), Band: "absent", OK: !slices.Contains(found, code)}
		if sk, ok := u.skip(c, code); ok && c.OK {
			out = append(out, sk)
			continue
		}
		if !c.OK {
			c.Msg = fmt.Sprintf("finding %s must not appear, but did", code)
		}
		out = append(out, c)
	}
	return out
}

func orOpen(s, open string) string {
	if s == "" {
		return open
	}
	return s
}

// FmtNum prints a measured value compactly: 503.1, 0.028, 1201.
func FmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "+∞"
	case math.IsInf(v, -1):
		return "−∞"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
