package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// RESULTS.md opens with the verdicts it holds, and every ❌ and ⏸ below
// is named there with its reason.
func TestResultsSayTheirVerdicts(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	quiet := make([]bool, 10)
	busyLast := []bool{false, false, false, false, false, true, true, true, true, true}
	exp := func(id string, busy []bool, p95 float64) *record.ExperimentResult {
		r := verdictRun(t0, busy, p95)
		record.CheckAll([]*record.RunResult{r})
		return &record.ExperimentResult{Exp: &experiment.Experiment{ID: id}, Runs: []*record.RunResult{r}}
	}
	s := &record.Summary{Experiments: []*record.ExperimentResult{exp("a", quiet, 20), exp("b", quiet, 64.88), exp("c", busyLast, 64.88)},
		LoadBefore: "2.1, 2.0, 1.9", LoadAfter: "3.0, 2.5, 2.0"}
	var b bytes.Buffer
	writeVerdicts(&b, s)
	got := b.String()
	for _, want := range []string{
		"**Verdicts: 1 PASS, 1 FAIL, 1 not measured** of 3 experiments",
		"- ❌ b / run \"sweep\": step last server_time p(95) = 64.88",
		"- ⏸ c / run \"sweep\": not measured: the machine was busy (50 % of its CPUs taken by other processes during the failing step)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the header lacks %q:\n%s", want, got)
		}
	}
	if v := verdictOf(s.Experiments[2]); !strings.HasPrefix(v, "⏸ not measured") {
		t.Errorf("c's verdict %q, want ⏸ not measured", v)
	}
}

// verdictTimeline builds a 2-CPU timeline from t0, one sample a second: in
// second i other processes used others[i] CPU-seconds and the hypervisor
// stole stolen[i] (nil: none), beside 0.6 CPU-seconds of the experiment's
// own. It is record's test fixture timeline, which a test here cannot
// import.
func verdictTimeline(t0 time.Time, others []float64, stolen []float64) *record.LoadTimeline {
	tl := &record.LoadTimeline{CPUs: 2}
	var s record.LoadSample
	s.At = t0
	tl.Samples = append(tl.Samples, s)
	sec := func(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }
	for i, o := range others {
		s.At = s.At.Add(time.Second)
		s.Ours += sec(0.6)
		s.Busy += sec(0.6 + o)
		if stolen != nil {
			s.Steal += sec(stolen[i])
		}
		tl.Samples = append(tl.Samples, s)
	}
	return tl
}

// verdictRun is E7's last run in miniature (record's test fixture e7Run):
// a sweep of two 5 s steps with a band on the last step's server p95 (want
// ≤ 25, measured 64.88), over a timeline whose other processes took one of
// the two CPUs during the seconds of busy.
func verdictRun(t0 time.Time, busy []bool, lastP95 float64) *record.RunResult {
	others := make([]float64, 10)
	for i, b := range busy {
		if b {
			others[i] = 1
		}
	}
	step := func(name string, from, to, p95 float64) metrics.Step {
		return metrics.Step{Name: name, StartMs: from, EndMs: to, Metrics: map[string]metrics.Metric{
			"server_time": {Type: "trend", Values: map[string]float64{"p(95)": p95}}}}
	}
	spec := &experiment.RunSpec{Name: "sweep", Expect: experiment.Expect{AllowFailures: true,
		Bands: []experiment.Band{{Metric: "step last server_time p(95)", Max: "25"}}}}
	return &record.RunResult{Spec: spec, Origin: t0, Load: verdictTimeline(t0, others, nil),
		Doc: &metrics.Document{Steps: []metrics.Step{step("1", 0, 5000, 12), step("2", 5000, 10000, lastP95)}}}
}
