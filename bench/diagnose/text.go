package diagnose

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

// readText reads k6's end-of-test summary as printed on the console
// (compact or --summary-mode=full, v1 layout and the older one): what a
// user has when nothing else was saved. The first occurrence of a metric
// (TOTAL RESULTS) counts; scenario and group sections repeat it. Values
// are rounded as k6 prints them.
func (r Reader) readText(br *bufio.Reader, name string) (*Observation, error) {
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	ms := map[string]metrics.Metric{}
	var last string // the metric a "{ tag:value }" line belongs to
	var lineNo int64
	run := RunInfo{}
	var elapsed float64
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		line = strings.TrimLeft(line, "✓✗↳ ")
		if ex, ok := executorOf(line); ok && run.Executor == "" {
			run.Executor = ex
		}
		if rest, ok := strings.CutPrefix(line, "running ("); ok {
			if d, err := time.ParseDuration(strings.SplitN(rest, ")", 2)[0]); err == nil {
				elapsed = d.Seconds()
			}
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || !strings.Contains(key, "..") {
			continue
		}
		key = strings.TrimRight(key, ".")
		if strings.HasPrefix(key, "{") {
			key = last + "{" + strings.Join(strings.Fields(strings.Trim(key, "{} ")), "") + "}"
		} else {
			last = key
		}
		if _, seen := ms[key]; seen {
			continue
		}
		m, err := parseTextValues(val)
		if err != nil {
			return nil, &InputError{Source: name, Line: lineNo, Msg: fmt.Sprintf("%s: %v", key, err)}
		}
		ms[key] = m
	}
	if err := sc.Err(); err != nil {
		return nil, &InputError{Source: name, Line: lineNo + 1, Msg: err.Error(), Err: err}
	}
	if !hasHTTP(ms) {
		return nil, &InputError{Source: name, Msg: "no http_req metrics found: expected " + expected}
	}
	w, err := windowFromMetrics(ms, nil, r.ServerMetric)
	if err != nil {
		return nil, &InputError{Source: name, Msg: err.Error(), Err: err}
	}
	if w.Seconds == 0 {
		w.Seconds = elapsed
	}
	run.Model = ModelOf(run.Executor)
	run.VUs = int(w.VUs)
	o := &Observation{Format: FormatText, Run: run, Window: w}
	o.Notes = append(o.Notes, "read from the printed summary: values are rounded as k6 prints them")
	return o, nil
}

// parseTextValues reads the right-hand side of a summary line.
func parseTextValues(val string) (metrics.Metric, error) {
	f := strings.Fields(val)
	m := metrics.Metric{Values: map[string]float64{}}
	if len(f) == 0 {
		return m, fmt.Errorf("no value")
	}
	if strings.Contains(f[0], "=") { // a trend: avg=51.37ms min=…
		m.Type = "trend"
		for _, kv := range f {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			ms, err := textDuration(v)
			if err != nil {
				return m, fmt.Errorf("%s=%s: %w", k, v, err)
			}
			m.Values[k] = ms
		}
		return m, nil
	}
	if pct, ok := strings.CutSuffix(f[0], "%"); ok { // a rate
		r, err := strconv.ParseFloat(pct, 64)
		if err != nil {
			return m, fmt.Errorf("%q is not a percentage", f[0])
		}
		m.Type = "rate"
		m.Values["rate"] = r / 100
		// v1: "0.00% 0 out of 291"; older: "0.00% ✓ 0 ✗ 291".
		if len(f) >= 4 && f[2] == "out" {
			passes, _ := strconv.ParseFloat(f[1], 64)
			total, _ := strconv.ParseFloat(f[len(f)-1], 64)
			m.Values["passes"], m.Values["fails"] = passes, total-passes
		} else if len(f) >= 5 && f[1] == "✓" {
			m.Values["passes"], _ = strconv.ParseFloat(f[2], 64)
			m.Values["fails"], _ = strconv.ParseFloat(f[4], 64)
		}
		return m, nil
	}
	n, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return m, fmt.Errorf("%q is not a number", f[0])
	}
	rest := f[1:]
	if len(rest) > 0 { // a size: "39 kB 7.8 kB/s"
		if mult, ok := textSizes[rest[0]]; ok {
			n *= mult
			rest = rest[1:]
		}
	}
	if len(rest) > 0 && strings.HasPrefix(rest[0], "min=") { // a gauge
		m.Type = "gauge"
		m.Values["value"] = n
		for _, kv := range rest {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m.Values[k], _ = strconv.ParseFloat(v, 64)
			}
		}
		return m, nil
	}
	m.Type = "counter"
	m.Values["count"] = n
	if len(rest) > 0 {
		if r, err := strconv.ParseFloat(strings.TrimSuffix(rest[0], "/s"), 64); err == nil && strings.HasSuffix(rest[0], "/s") {
			m.Values["rate"] = r
		}
	}
	return m, nil
}

var textSizes = map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}

// textDuration reads k6's printed durations ("26.41µs", "1m2.5s"); a bare
// number is in ms (--summary-time-unit=ms).
func textDuration(v string) (float64, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("not a duration")
	}
	return float64(d) / 1e6, nil
}

// executorOf recognises the scenario line of k6's header
// ("* default: 3 looping VUs for 5s (gracefulStop: 30s)").
func executorOf(line string) (string, bool) {
	if !strings.HasPrefix(line, "* ") {
		return "", false
	}
	switch {
	case strings.Contains(line, "Up to") && strings.Contains(line, "looping VUs"):
		return "ramping-vus", true
	case strings.Contains(line, "looping VUs"):
		return "constant-vus", true
	case strings.Contains(line, "Up to") && strings.Contains(line, "iterations/s"):
		return "ramping-arrival-rate", true
	case strings.Contains(line, "iterations/s"):
		return "constant-arrival-rate", true
	case strings.Contains(line, "iterations for each of"):
		return "per-vu-iterations", true
	case strings.Contains(line, "iterations shared among"):
		return "shared-iterations", true
	}
	return "", false
}
