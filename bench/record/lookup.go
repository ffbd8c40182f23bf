package record

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
)

// Lookup answers a metric reference of this run. References are words
// separated by spaces:
//
//	http_req_blocked p(95)          a metric of the results document and a stat
//	tps                             requests per second (http_reqs rate)
//	statuses 429                    responses with that status
//	server requests                 the server's own view: requests, bytesIn, bytesOut, inFlight
//	server server_time p(95)        … and its trends: server_time, queue_time, read_time, handler_time
//	server statuses 200
//	outside avg                     the time outside the server as the diagnosis report prints it (avg or
//	                                p(95)): waiting − server time − server queue, of the served requests
//	stage lb.tls delay p(95)        a stage's counters: seen, passed, rejected, rejected.429,
//	                                bytes, extra.NAME, delay STAT, queued STAT (box.kind or box.N)
//	step last http_req_duration p(95)   the same inside a step (1-based index, first, last or name);
//	                                    also: step 2 vus, step 2 rate, step 2 cpu
//	generator cpu                   the generator's CPU use (% of its cores)
//	derived fixedWindowPassed       what an exact fixed-window limiter passes for this run's schedule
func (r *RunResult) Lookup(ref string) (float64, error) {
	w := strings.Fields(ref)
	if len(w) == 0 {
		return 0, fmt.Errorf("empty metric reference")
	}
	switch w[0] {
	case "tps":
		return metricStat(r.Doc.Metrics, "http_reqs", "rate")
	case "statuses":
		if len(w) != 2 {
			return 0, fmt.Errorf("%q: want statuses CODE", ref)
		}
		return float64(r.Doc.Statuses[w[1]]), nil
	case "server":
		return serverLookup(&r.Server, w[1:], ref)
	case "outside":
		stat := "avg"
		if len(w) == 2 {
			stat = w[1]
		}
		return reportOutside(r.Report.Phases.Outside, stat, ref)
	case "stage":
		return stageLookup(r.Path, w[1:], ref)
	case "step":
		return r.stepLookup(w[1:], ref)
	case "generator":
		if len(w) != 2 || w[1] != "cpu" {
			return 0, fmt.Errorf("%q: want generator cpu", ref)
		}
		if r.Doc.GeneratorCPU == nil {
			return 0, fmt.Errorf("%q: the run did not measure its CPU", ref)
		}
		return r.Doc.GeneratorCPU.Percent, nil
	case "derived":
		if len(w) == 2 && w[1] == "fixedWindowPassed" {
			return r.fixedWindowPassed()
		}
		return 0, fmt.Errorf("%q: the derived values are: fixedWindowPassed", ref)
	}
	if len(w) != 2 {
		return 0, fmt.Errorf("%q: want METRIC STAT, e.g. http_req_waiting avg", ref)
	}
	return metricStat(r.Doc.Metrics, w[0], w[1])
}

// reportOutside reads the time outside the server off the diagnosis
// report, so that a band checks the very number the report prints.
func reportOutside(st diagnose.Stat, stat, ref string) (float64, error) {
	if !st.Present() {
		return math.NaN(), fmt.Errorf("%q: the report shows no time outside the server (no server time, or fast failures the server never timed)", ref)
	}
	switch stat {
	case "avg":
		return st.Avg, nil
	case "p(95)":
		return st.P95, nil
	}
	return math.NaN(), fmt.Errorf("%q: the report prints the time outside the server as avg and p(95) only", ref)
}

// metricStat reads a value of a results-document metric. A counter the
// engine did not emit (dropped_iterations of a run that dropped none)
// counts as 0.
func metricStat(ms map[string]metrics.Metric, name, stat string) (float64, error) {
	m, ok := ms[name]
	if !ok {
		if name == "dropped_iterations" && (stat == "count" || stat == "rate") {
			return 0, nil
		}
		return 0, fmt.Errorf("no metric %q in this run", name)
	}
	v, ok := m.Values[stat]
	if !ok {
		keys := make([]string, 0, len(m.Values))
		for k := range m.Values {
			keys = append(keys, k)
		}
		return 0, fmt.Errorf("metric %q has no %q (it has %s)", name, stat, strings.Join(sortedStrings(keys), ", "))
	}
	return v, nil
}

func serverLookup(v *timing.ServerView, w []string, ref string) (float64, error) {
	if len(w) == 0 {
		return 0, fmt.Errorf("%q: want server FIELD", ref)
	}
	trend := func(m map[string]float64) (float64, error) {
		if len(w) != 2 {
			return 0, fmt.Errorf("%q: want server %s STAT", ref, w[0])
		}
		x, ok := m[w[1]]
		if !ok {
			return 0, fmt.Errorf("%q: no stat %q", ref, w[1])
		}
		return x, nil
	}
	switch w[0] {
	case "requests":
		return float64(v.Requests), nil
	case "inFlight":
		return float64(v.InFlight), nil
	case "bytesIn":
		return float64(v.BytesIn), nil
	case "bytesOut":
		return float64(v.BytesOut), nil
	case "statuses":
		if len(w) != 2 {
			return 0, fmt.Errorf("%q: want server statuses CODE", ref)
		}
		return float64(v.Statuses[w[1]]), nil
	case "server_time":
		return trend(v.ServerTime)
	case "queue_time":
		return trend(v.QueueTime)
	case "read_time":
		return trend(v.ReadTime)
	case "handler_time":
		return trend(v.HandlerTime)
	}
	return 0, fmt.Errorf("%q: the server's fields are requests, inFlight, bytesIn, bytesOut, statuses, server_time, queue_time, read_time, handler_time", ref)
}

func stageLookup(ps *proxy.PathStats, w []string, ref string) (float64, error) {
	if ps == nil {
		return 0, fmt.Errorf("%q: this run has no path", ref)
	}
	if len(w) < 2 {
		return 0, fmt.Errorf("%q: want stage BOX.KIND FIELD", ref)
	}
	boxName, which, ok := strings.Cut(w[0], ".")
	if !ok {
		return 0, fmt.Errorf("%q: name the stage as BOX.KIND or BOX.N", ref)
	}
	var st *proxy.StageStats
	for i := range ps.Boxes {
		if ps.Boxes[i].Name != boxName {
			continue
		}
		for j := range ps.Boxes[i].Stages {
			s := &ps.Boxes[i].Stages[j]
			if s.Kind == which || strconv.Itoa(s.Index) == which {
				st = s
				break
			}
		}
	}
	if st == nil {
		return 0, fmt.Errorf("%q: no stage %s in box %q", ref, which, boxName)
	}
	field, sub, _ := strings.Cut(w[1], ".")
	switch field {
	case "seen":
		return float64(st.Seen), nil
	case "passed":
		return float64(st.Passed), nil
	case "bytes":
		return float64(st.Bytes), nil
	case "rejected":
		if sub != "" {
			return float64(st.Rejected[sub]), nil
		}
		return float64(st.RejectedTotal()), nil
	case "extra":
		return float64(st.Extra[sub]), nil
	case "delay", "queued":
		m := st.Delay
		if field == "queued" {
			m = st.Queued
		}
		if len(w) != 3 {
			return 0, fmt.Errorf("%q: want stage %s %s STAT", ref, w[0], field)
		}
		return m[w[2]], nil // no delay recorded reads as 0
	}
	return 0, fmt.Errorf("%q: a stage's fields are seen, passed, rejected[.CODE], bytes, extra.NAME, delay STAT, queued STAT", ref)
}

func (r *RunResult) stepLookup(w []string, ref string) (float64, error) {
	steps := r.Doc.Steps
	if len(w) < 2 {
		return 0, fmt.Errorf("%q: want step WHICH METRIC [STAT]", ref)
	}
	if len(steps) == 0 {
		return 0, fmt.Errorf("%q: this run has no steps", ref)
	}
	s := r.stepNamed(w[0])
	if s == nil {
		return 0, fmt.Errorf("%q: no step %s (the run has %d)", ref, w[0], len(steps))
	}
	switch w[1] {
	case "vus":
		return float64(s.VUs), nil
	case "rate":
		return s.Rate, nil
	case "cpu":
		if s.GeneratorCPU == nil {
			return math.NaN(), fmt.Errorf("%q: the step has no CPU figure", ref)
		}
		return s.GeneratorCPU.Percent, nil
	case "tps":
		return metricStat(s.Metrics, "http_reqs", "rate")
	case "outside":
		stat := "avg"
		if len(w) == 3 {
			stat = w[2]
		}
		rows := r.Report.Steps
		if r.StepReport != nil {
			rows = r.StepReport.Steps
		}
		for _, row := range rows {
			if row.Name == s.Name {
				return reportOutside(row.Outside, stat, ref)
			}
		}
		return math.NaN(), fmt.Errorf("%q: the report has no step %s", ref, s.Name)
	}
	if len(w) != 3 {
		return 0, fmt.Errorf("%q: want step %s METRIC STAT", ref, w[0])
	}
	return metricStat(s.Metrics, w[1], w[2])
}

// stepNamed is the step a reference names: a 1-based index, first, last
// or a name; nil for none.
func (r *RunResult) stepNamed(which string) *metrics.Step {
	steps := r.Doc.Steps
	if len(steps) == 0 {
		return nil
	}
	switch which {
	case "first":
		return &steps[0]
	case "last":
		return &steps[len(steps)-1]
	}
	if i, err := strconv.Atoi(which); err == nil && i >= 1 && i <= len(steps) {
		return &steps[i-1]
	}
	for i := range steps {
		if steps[i].Name == which {
			return &steps[i]
		}
	}
	return nil
}

func sortedStrings(s []string) []string {
	slices.Sort(s)
	return s
}
