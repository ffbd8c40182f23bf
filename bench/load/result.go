package load

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/buildinfo"
	"github.com/middlebench/middlebench/internal/timing"
)

// Result is what a run measured. Counts are exact; Document renders it
// as the results document.
type Result struct {
	Start    time.Time // when the executor started: t=0 of the schedule
	End      time.Time // when its last VU was done
	Executor string
	Scenario string

	Requests    int64 // http_reqs
	Failed      int64 // requests counted as failed by http_req_failed
	Iterations  int64 // complete iterations
	Interrupted int64 // iterations cut by a graceful-stop deadline, a ramp-down or Ctrl-C
	Dropped     int64 // dropped_iterations
	Statuses    map[int]int64
	Errors      map[string]int64 // error class → requests
	ErrorCodes  map[int]int64    // k6 error code → requests (1000+status for HTTP ≥ 400)
	// ErrorExamples holds one message per error code, for the reader.
	ErrorExamples map[int]string
	// MaxDurationSkew is, over every request, the largest difference
	// between http_req_duration (sending+waiting+receiving) and the time
	// measured apart from the phases from the start of sending to the end.
	// It is 0 unless a response started before its request was written.
	MaxDurationSkew time.Duration
	// Aborted is set when ctx ended the run early (Ctrl-C).
	Aborted bool
	// ThresholdsFailed counts failed thresholds (exit status 99 in the CLI).
	ThresholdsFailed int
	// AbortedByThreshold is set when a threshold with abortOnFail ended
	// the run early.
	AbortedByThreshold bool

	doc    *metrics.Document
	trends map[string]*timing.Trend
}

// Document returns the results document (k6 handleSummary shape, plus
// middlebench's run, generator_cpu, statuses, errors, steps and the
// encoded histograms). The caller may fill Server and Stages.
func (r *Result) Document() *metrics.Document { return r.doc }

// Trend returns a metric's exact trend (e.g. "http_req_waiting",
// "server_time", "http_req_duration{expected_response:true}"), or nil.
func (r *Result) Trend(name string) *timing.Trend { return r.trends[name] }

// Duration is the run's length, from Start to End.
func (r *Result) Duration() time.Duration { return r.End.Sub(r.Start) }

func newResult(opts Options, scs []*scenarioRun, p plan, es engines, col *collector, ts []metrics.Threshold,
	start, end time.Time, cpu0, cpu1 rusage, stepCPU []rusage, aborted bool) *Result {
	tot := col.total()
	cfg := scs[0].cfg
	executor, scenario, arrival := cfg.ExecutorName(), cfg.scenario(), false
	for i, s := range scs {
		name := s.cfg.ExecutorName()
		arrival = arrival || name == ConstantArrivalRate || name == RampingArrivalRate
		if i > 0 {
			executor += "," + name
			scenario += "," + s.cfg.scenario()
		}
	}
	res := &Result{Start: start, End: end, Executor: executor, Scenario: scenario,
		Requests: tot.reqs, Failed: tot.failed.Passes, Iterations: tot.iters, Interrupted: tot.interrupted, Dropped: tot.dropped,
		Statuses: map[int]int64{}, Errors: map[string]int64{}, ErrorCodes: map[int]int64{}, ErrorExamples: map[int]string{},
		MaxDurationSkew: time.Duration(tot.maxSkew), Aborted: aborted, trends: map[string]*timing.Trend{}}
	for k, v := range tot.statuses {
		res.Statuses[k] = v
	}
	for c, n := range tot.errors {
		if n > 0 {
			res.Errors[errClass(c).String()] = n
		}
	}
	for k, v := range tot.codes {
		res.ErrorCodes[int(k)] = v
	}
	for _, e := range es {
		for _, v := range e.vus {
			for k, msg := range v.firstErr {
				if _, ok := res.ErrorExamples[int(k)]; !ok {
					res.ErrorExamples[int(k)] = msg
				}
			}
		}
	}
	stats := mergeStats(opts.TrendStats)
	seconds := end.Sub(start).Seconds()
	doc := &metrics.Document{
		State:   metrics.State{TestRunDurationMs: timing.Millis(end.Sub(start))},
		Options: metrics.Options{SummaryTrendStats: stats},
		Run: &metrics.RunInfo{Tool: buildinfo.Tool(), Executor: res.Executor, URL: cfg.URL,
			VUs: p.vus, MaxVUs: p.maxVUs, Rate: p.rate, DurationMs: timing.Millis(p.regular), Iterations: cfg.Iterations,
			Start: start.Format(time.RFC3339Nano), Interrupted: aborted,
			Scenario: res.Scenario, MaxDurationSkewMs: timing.Millis(tot.maxSkew)},
		GeneratorCPU: cpuBetween(cpu0, cpu1),
		Statuses:     keyMap(tot.statuses),
		Errors:       res.Errors,
		ErrorCodes:   keyMap(tot.codes),
	}
	if st := scs[0].st; st != nil && !st.isFull() {
		doc.Run.ExecutionSegment, doc.Run.ExecutionSegmentSequence = st.seg.String(), st.seq
	}
	doc.Metrics, doc.Histograms = renderAgg(tot, col.subs, seconds, stats, arrival, res.trends)
	prev := cpu0
	for i, s := range p.steps {
		a := col.steps[i]
		st := metrics.Step{Name: s.name, StartMs: timing.Millis(s.start), EndMs: timing.Millis(s.end), VUs: s.vus, Rate: s.rate,
			Statuses: keyMap(a.statuses)}
		st.Metrics, st.Histograms = renderAgg(a, col.subs, (s.end - s.start).Seconds(), stats, arrival, nil)
		snap := stepCPU[i]
		if snap.at.IsZero() && (i == len(p.steps)-1 || start.Add(s.end).Before(end)) {
			snap = cpu1 // the run ended as (or after) the step did, before the sampler woke
		}
		if !snap.at.IsZero() {
			st.GeneratorCPU = cpuBetween(prev, snap)
			prev = snap
		}
		doc.Steps = append(doc.Steps, st)
	}
	for i, a := range col.scens {
		if doc.Scenarios == nil {
			doc.Scenarios = map[string]metrics.ScenarioResult{}
		}
		sr := metrics.ScenarioResult{Executor: scs[i].cfg.ExecutorName()}
		sr.Metrics, sr.Histograms = renderAgg(a, nil, seconds, stats, arrival, nil)
		doc.Scenarios[scs[i].cfg.scenario()] = sr
	}
	res.ThresholdsFailed = metrics.ApplyThresholds(doc, ts)
	res.doc = doc
	return res
}

func mergeStats(extra []string) []string {
	stats := timing.FullTrendStats()
	for _, s := range extra {
		found := false
		for _, have := range stats {
			found = found || have == s
		}
		if !found {
			stats = append(stats, s)
		}
	}
	return stats
}

// keyMap spells a count map's keys as the JSON document does.
func keyMap[K int | uint16](m map[K]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[strconv.Itoa(int(k))] = v
	}
	return out
}

// renderAgg turns an aggregate into k6 metrics and encoded histograms;
// trends are also put in keep when it is not nil.
func renderAgg(a *stepAgg, subs []*submetric, seconds float64, stats []string, arrival bool, keep map[string]*timing.Trend) (map[string]metrics.Metric, map[string]string) {
	ms := map[string]metrics.Metric{}
	hs := map[string]string{}
	addTrend := func(name string, t *timing.Trend) {
		if t == nil {
			return
		}
		m, err := metrics.TrendMetric(t, stats)
		if err != nil {
			return // stats were validated before the run
		}
		ms[name] = m
		if enc, err := t.Encode(); err == nil {
			hs[name] = enc
		}
		if keep != nil {
			keep[name] = t
		}
	}
	for i := range numTrends {
		if i == tIteration || i == tServer || i == tServerQueue || a.reqs > 0 {
			addTrend(trendName(i), a.trends[i])
		}
	}
	counter := func(name string, n int64) {
		_, contains, _ := metricType(name)
		ms[name] = metrics.Metric{Type: metrics.TypeCounter, Contains: contains, Values: metrics.Counter{N: n}.Values(seconds)}
	}
	counter(mHTTPReqs, a.reqs)
	counter(mIterations, a.iters)
	counter(mDataSent, a.sent)
	counter(mDataReceived, a.recv)
	if arrival || a.dropped > 0 {
		counter(mDropped, a.dropped)
	}
	ms[mHTTPFailed] = metrics.Metric{Type: metrics.TypeRate, Contains: metrics.ContainsDefault, Values: a.failed.Values()}
	if a.vus.Sampled() { // as k6, no gauge where none was sampled (not zeros)
		ms[mVUs] = metrics.Metric{Type: metrics.TypeGauge, Contains: metrics.ContainsDefault, Values: a.vus.Values()}
	}
	if a.vusMax.Sampled() {
		ms[mVUsMax] = metrics.Metric{Type: metrics.TypeGauge, Contains: metrics.ContainsDefault, Values: a.vusMax.Values()}
	}
	for i, s := range subs {
		sa := a.subs[i]
		switch {
		case s.trend >= 0:
			addTrend(s.name, sa.trend)
		case s.parent == mHTTPFailed:
			ms[s.name] = metrics.Metric{Type: metrics.TypeRate, Contains: metrics.ContainsDefault, Values: sa.rate.Values()}
		default:
			ms[s.name] = metrics.Metric{Type: metrics.TypeCounter, Contains: metrics.ContainsDefault, Values: metrics.Counter{N: sa.count}.Values(seconds)}
		}
	}
	return ms, hs
}

// SortedStatuses lists status codes in order, for printing.
func (r *Result) SortedStatuses() []int {
	keys := make([]int, 0, len(r.Statuses))
	for k := range r.Statuses {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// String is a one-line account of the run.
func (r *Result) String() string {
	return fmt.Sprintf("%d requests (%d failed), %d iterations, %d interrupted, %d dropped in %s",
		r.Requests, r.Failed, r.Iterations, r.Interrupted, r.Dropped, r.Duration().Round(time.Millisecond))
}
