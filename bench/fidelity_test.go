package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		eng, k6 float64
		ok      bool
	}{
		{500, 524, true},   // 4.8 % of 500
		{500, 526, false},  // 5.2 %
		{0.05, 1.04, true}, // 1 ms floor
		{0.05, 1.10, false},
		{10, 9, true},
		{math.NaN(), math.NaN(), true}, // neither has the phase
		{math.NaN(), 3, false},
	}
	for _, tt := range tests {
		if got := within(tt.eng, tt.k6); got != tt.ok {
			t.Errorf("within(%v, %v) = %v, want %v", tt.eng, tt.k6, got, tt.ok)
		}
	}
}

// fakeRun is a run whose document has one phase's avg and p95, a CPU
// figure and a request count.
func fakeRun(name string, avg, p95, cpu float64, reqs int64) *RunResult {
	ms := map[string]metrics.Metric{}
	for _, p := range fidelityPhases {
		ms[p.ref] = metrics.Metric{Values: map[string]float64{"avg": 1, "p(95)": 1}}
	}
	ms["http_req_waiting"] = metrics.Metric{Values: map[string]float64{"avg": avg, "p(95)": p95}}
	return &RunResult{Spec: &RunSpec{Name: name}, Result: &load.Result{Requests: reqs},
		Doc: &metrics.Document{Metrics: ms, GeneratorCPU: &metrics.CPUUsage{Percent: cpu}}}
}

func TestFidelityTable(t *testing.T) {
	x := &ExperimentResult{Exp: &Experiment{ID: "e6"},
		Runs: []*RunResult{fakeRun("blocked", 0.2, 0.3, 97, 200000)},
		K6:   []*K6Run{{RunResult: fakeRun("blocked", 1.5, 3, 99, 40000)}}}
	rows := fidelity(x)
	if len(rows) != len(fidelityPhases) {
		t.Fatalf("%d rows, want one per phase (%d)", len(rows), len(fidelityPhases))
	}
	var waiting fidelityRow
	for _, r := range rows {
		if r.Phase == "waiting" {
			waiting = r
		} else if !r.AvgOK || !r.P95OK || r.Reason != "" {
			t.Errorf("%s: equal figures not within: %+v", r.Phase, r)
		}
	}
	if waiting.AvgOK || waiting.P95OK {
		t.Errorf("waiting 0.2 vs 1.5 ms, p95 0.3 vs 3 ms: within? %+v", waiting)
	}
	for _, want := range []string{"engine 97 %", "k6 99 %", "CPU-bound", "k6 sent 40000 requests, the engine 200000"} {
		if !strings.Contains(waiting.Reason, want) {
			t.Errorf("reason %q lacks %q", waiting.Reason, want)
		}
	}
	var b bytes.Buffer
	writeFidelity(&b, &Summary{Experiments: []*ExperimentResult{x}, K6Version: "k6 v1.8.1", LoadBefore: "1, 2, 3", LoadAfter: "4, 5, 6"})
	md := b.String()
	for _, want := range []string{"## Real k6 as a second generator", "k6 v1.8.1", "12 of 14 figures", "1, 2, 3", "| e6 | blocked | waiting | 200µs / 1.5ms ❌"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

func TestWriteK6Scripts(t *testing.T) {
	e, err := LoadExperiment("../experiments/e1-tls-handshake.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteK6Scripts(e, "", "", &out); err == nil || !strings.Contains(err.Error(), "has 3 runs") {
		t.Errorf("three runs to stdout: %v", err)
	}
	out.Reset()
	if err := WriteK6Scripts(e, "delay, reuse", "", &out); err != nil || !strings.Contains(out.String(), "export const options") {
		t.Errorf("one run to stdout: %v, %.80q", err, out.String())
	}
	if err := WriteK6Scripts(e, "no such run", "", &out); err == nil || !strings.Contains(err.Error(), `no run "no such run"`) {
		t.Errorf("unknown run: %v", err)
	}
	dir := t.TempDir()
	out.Reset()
	if err := WriteK6Scripts(e, "", dir, &out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"e1-1.js", "e1-2.js", "e1-3.js"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("%s not written: %s", f, out.String())
		}
	}
}
