package diagnose

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// windowFromMetrics reads k6-shaped metrics (handleSummary's, or the
// export's after conversion) into a Window. Built-in metrics of the wrong
// type are refused; other metrics are ignored. Sub-metrics
// "http_req_*{expected_response:true}" give the OK phases.
func windowFromMetrics(ms map[string]metrics.Metric, hists map[string]string, serverMetric string) (Window, error) {
	var w Window
	specs := builtinSpecs(serverMetric)
	var ok Phases
	vusMax := 0.0
	for _, name := range slices.Sorted(maps.Keys(ms)) {
		m := ms[name]
		base, sub, _ := strings.Cut(name, "{")
		sp, known := specs[base]
		if !known {
			continue
		}
		got := m.Type
		if got == "" {
			got = typeOfValues(m.Values)
		}
		if sp.want != "" && got != sp.want {
			return w, fmt.Errorf("metric %s: expected a %s (%s), found a %s (%s)",
				name, sp.want, typeShape[sp.want], got, valueNames(m.Values))
		}
		if err := checkValues(name, sp.kind, m.Values); err != nil {
			return w, err
		}
		if sub != "" {
			if sp.kind == kPhase && strings.TrimSuffix(sub, "}") == "expected_response:true" {
				*ok.at(sp.phase) = statFromValues(m.Values)
			}
			continue
		}
		v := m.Values
		switch sp.kind {
		case kPhase:
			st := statFromValues(v)
			if enc, has := hists[name]; has {
				t, err := timing.DecodeTrend(enc)
				if err != nil {
					return w, fmt.Errorf("histograms[%s]: %w", name, err)
				}
				st = statFromTrend(t)
			}
			*w.Phases.at(sp.phase) = st
		case kReqs:
			w.Requests = int64(v["count"]) // sorted keys: http_reqs comes after http_req_failed
			if r := v["rate"]; r > 0 && w.Seconds == 0 {
				w.Seconds = v["count"] / r
			}
		case kFailed:
			w.Failed = int64(v["passes"])
			if w.Requests == 0 { // http_reqs missing (a partial summary): every request has a verdict
				w.Requests = int64(v["passes"] + v["fails"])
			}
		case kIters:
			w.Iterations = int64(v["count"])
		case kDropped:
			w.Dropped = int64(v["count"])
		case kIterDur:
			w.IterAvg = v["avg"]
		case kSent:
			w.DataSent = int64(v["count"])
		case kReceived:
			w.DataReceived, w.hasReceived = int64(v["count"]), true
		case kVUs:
			// The gauge's last value is the VUs left at the end (1 as a
			// ramp winds down): only its max says what ran.
			w.VUs, w.vusMin = v["max"], v["min"]
		case kVUsMax:
			vusMax = max(v["max"], v["value"])
		}
	}
	// A phase the file does not carry is not known to be 0 (k6's printed
	// summary leaves out the phases of its compact mode).
	for i := range phServer {
		if _, ok := ms[k6Names[i]]; !ok {
			w.missing = append(w.missing, k6Names[i])
		}
	}
	if w.VUs == 0 {
		w.VUs = vusMax // a summary whose vus gauge has no max: the VUs allocated
	}
	if ok.Duration.Present() {
		// A summary keeps only http_req_duration{expected_response:true}:
		// the served requests' waiting is their duration less what
		// sending and receiving take on average (an estimate, said so).
		if d, wt := w.Phases.Duration, w.Phases.Waiting; !ok.Waiting.Present() && d.Present() && wt.Present() {
			if est := ok.Duration.Avg - (d.Avg - wt.Avg); est > 0 {
				ok.Waiting = Stat{Avg: est}
				w.okWaitingEstimated = true
			}
		}
		w.OK = &ok
	}
	return w, nil
}

// statFromTrend summarises an exact histogram of a results document.
func statFromTrend(t *timing.Trend) Stat {
	var s Stat
	for _, k := range statKeys {
		if v, err := t.Stat(k); err == nil {
			s.set(k, v)
		}
	}
	return s
}

// typeShape says which values make each k6 metric type.
var typeShape = map[string]string{
	"trend":   "avg, med, p(95) …",
	"counter": "count, rate",
	"rate":    "rate, passes, fails",
	"gauge":   "value, min, max",
}

// typeOfValues tells a metric's type from its values, as the flat export
// leaves no "type".
func typeOfValues(v map[string]float64) string {
	has := func(k string) bool { _, ok := v[k]; return ok }
	switch {
	case has("passes") || has("fails"):
		return "rate"
	case has("count") && has("rate"):
		return "counter"
	case has("value"):
		return "gauge"
	}
	for k := range v {
		if k == "avg" || k == "med" || k == "min" || k == "max" || strings.HasPrefix(k, "p(") {
			return "trend"
		}
	}
	if has("count") {
		return "counter"
	}
	return "metric without values"
}

func valueNames(v map[string]float64) string {
	if len(v) == 0 {
		return "no values"
	}
	return strings.Join(slices.Sorted(maps.Keys(v)), ", ")
}

// fromSummaryExport reads k6's --summary-export metrics: flat values, a
// Rate's rate called "value", thresholds as {"source": true} where true
// means the threshold FAILED.
func (r Reader) fromSummaryExport(raw map[string]json.RawMessage) (*Observation, error) {
	ms := make(map[string]metrics.Metric, len(raw))
	for name, body := range raw {
		var flat map[string]json.RawMessage
		if err := json.Unmarshal(body, &flat); err != nil {
			return nil, fmt.Errorf("metric %s: want an object of values", name)
		}
		m := metrics.Metric{Values: map[string]float64{}}
		for k, x := range flat {
			if k == "thresholds" {
				var th map[string]bool
				if err := json.Unmarshal(x, &th); err != nil {
					return nil, fmt.Errorf("metric %s: thresholds: want {\"source\": true|false}", name)
				}
				m.Thresholds = map[string]metrics.Verdict{}
				for src, failed := range th {
					m.Thresholds[src] = metrics.Verdict{OK: !failed}
				}
				continue
			}
			var f float64
			if err := json.Unmarshal(x, &f); err != nil {
				return nil, fmt.Errorf("metric %s: %s: want a number, found %s", name, k, short(x))
			}
			m.Values[k] = f
		}
		m.Type = typeOfValues(m.Values)
		if m.Type == "rate" {
			if v, ok := m.Values["value"]; ok {
				m.Values["rate"] = v
				delete(m.Values, "value")
			}
		}
		ms[name] = m
	}
	w, err := windowFromMetrics(ms, nil, r.ServerMetric)
	if err != nil {
		return nil, err
	}
	o := &Observation{Format: FormatSummaryExport, Window: w, Thresholds: thresholds(ms)}
	o.Run.VUs = int(w.VUs)
	if vm, ok := ms["vus_max"]; ok {
		o.Run.MaxVUs = int(vm.Values["max"])
	}
	return o, nil
}

func short(b []byte) string {
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}
