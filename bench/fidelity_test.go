package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/proxy"
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
	return fakePhaseRun(name, "http_req_waiting", avg, p95, cpu, reqs)
}

// fakePhaseRun is fakeRun for any phase; every other phase is 1 ms. Its
// CPU is cpu % of 2 cores over 5 s.
func fakePhaseRun(name, phase string, avg, p95, cpu float64, reqs int64) *RunResult {
	ms := map[string]metrics.Metric{}
	for _, p := range fidelityPhases {
		ms[p.ref] = metrics.Metric{Values: map[string]float64{"avg": 1, "p(95)": 1}}
	}
	ms[phase] = metrics.Metric{Values: map[string]float64{"avg": avg, "p(95)": p95}}
	secs := cpu / 100 * 2 * 5
	return &RunResult{Spec: &RunSpec{Name: name}, Result: &load.Result{Requests: reqs},
		Doc: &metrics.Document{Metrics: ms, GeneratorCPU: &metrics.CPUUsage{UserSeconds: secs * 0.75, SystemSeconds: secs * 0.25, Cores: 2, Percent: cpu}}}
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
	// 97 % of 2 cores for 5 s is 9.7 s of CPU over 200000 requests: 48.5 µs
	// each; 99 % over 40000: 247.5 µs.
	for _, want := range []string{"engine 48.5µs (97 %", "k6 247.5µs (99 %", "both generators CPU-bound", "k6 sent 40000 requests, the engine 200000"} {
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

// TestFidelityAgain: a row out of tolerance shows the round both
// generators ran again alike beside the replay's, whose verdict stands.
func TestFidelityAgain(t *testing.T) {
	x := &ExperimentResult{Exp: &Experiment{ID: "e6"},
		Runs: []*RunResult{fakeRun("blocked", 0.2, 0.3, 97, 200000)},
		K6:   []*K6Run{{RunResult: fakeRun("blocked", 1.5, 3, 99, 40000)}},
		// Again: waiting 0.25 / 0.3 ms and p95 0.35 / 6 ms: the average
		// within the 1 ms floor, the p95 not.
		Fair: []fairRound{{Run: "blocked", Eng: fakeRun("blocked", 0.25, 0.35, 50, 100000),
			K6: &K6Run{RunResult: fakeRun("blocked", 0.3, 6, 50, 50000)}, Load: [2]string{"1, 1, 1", "2, 2, 2"}}}}
	var b bytes.Buffer
	writeFidelity(&b, &Summary{Experiments: []*ExperimentResult{x}, K6Version: "k6 v1.8.1"})
	md := b.String()
	// The engine's own p95, 0.3 ms in the replay and 0.35 ms again, is
	// within the 1 ms floor: no spread to report on waiting.
	if strings.Contains(md, "the engine against itself") {
		t.Errorf("engine's rounds 0.2/0.25 ms, 0.3/0.35 ms reported apart:\n%s", md)
	}
	x.Fair[0].Eng = fakeRun("blocked", 0.25, 2.5, 50, 100000)
	b.Reset()
	writeFidelity(&b, &Summary{Experiments: []*ExperimentResult{x}, K6Version: "k6 v1.8.1"})
	if want := "the engine against itself, replay vs again: p95 300µs vs 2.5ms, out of max(5 %, 1 ms) too"; !strings.Contains(b.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, b.String())
	}
	// 50 % of 2 cores for 5 s = 5 s of CPU: 50 µs a request over 100000, 100 µs over 50000.
	for _, want := range []string{"12 of 14 figures", "Of the 2 that do not, 2 were measured again", "and 1 of those agree",
		"| e6 | blocked | waiting | 200µs / 1.5ms ❌ | 300µs / 3ms ❌ | 250µs / 300µs ✅; 350µs / 6ms ❌ (load 1, 1, 1 → 2, 2, 2; CPU per request: engine 50µs (50 %",
		"k6 100µs (50 %, k6 alone); k6 sent 50000 requests, the engine 100000) |",
		"| e6 | blocked | sending | 1ms / 1ms ✅ | 1ms / 1ms ✅ |  |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// TestFidelityWhy: a row out of tolerance names what the two rounds
// measured differently, from the figures each round configured here.
func TestFidelityWhy(t *testing.T) {
	serverAt := func(r *RunResult, work, workP95, queue float64) *RunResult {
		r.Server.ServerTime = map[string]float64{"avg": work, "p(95)": workP95}
		r.Server.QueueTime = map[string]float64{"avg": queue, "p(95)": queue}
		return r
	}
	withBox := func(r *RunResult, accepted int64, kind string, delay float64) *RunResult {
		r.Path = &proxy.PathStats{Boxes: []proxy.BoxStats{{Name: "waf", Accepted: accepted,
			Stages: []proxy.StageStats{{Index: 1, Kind: kind, Delay: map[string]float64{"avg": delay, "p(95)": delay}}}}}}
		return r
	}
	tests := []struct {
		name     string
		phase    string
		eng, k6  *RunResult
		want     []string
		wantNone []string
	}{{
		// The server's p95 was 505 ms in the engine's round, 565 ms in
		// k6's: 60 of the 64 ms gap; the other 4 ms are within 5 %. The
		// averages (503, 520) are within 5 % and not explained.
		name:     "the server's own time moved",
		phase:    "waiting",
		eng:      serverAt(fakeRun("slow", 503, 512, 1, 36), 500.5, 505, 0),
		k6:       serverAt(fakeRun("slow", 520, 576, 1, 36), 513.4, 565, 0),
		want:     []string{"p95: the target's own time 505ms → 565ms (server work 505ms + server queue 0s → server work 565ms + server queue 0s)", "it moved 60ms of the 64ms gap between the rounds; the rest, 4ms, is within max(5 %, 1 ms)", "p95 of 36 and 36 requests"},
		wantNone: []string{"avg:"},
	}, {
		// The WAF's ledger says 450 and 451 ms: it moved 1 of a 20 ms gap,
		// so the rest is not the target's.
		name:     "the target did not move",
		phase:    "waiting",
		eng:      withBox(serverAt(fakeRun("device", 500, 500, 1, 1000), 50, 50, 0), 3, "waf", 450),
		k6:       withBox(serverAt(fakeRun("device", 530, 530, 1, 1000), 50, 50, 0), 3, "waf", 451),
		want:     []string{"avg: the target's own time 500ms → 501ms (server work 50ms + server queue 0s + waf.waf delay 450ms → server work 50ms + server queue 0s + waf.waf delay 451ms)"},
		wantNone: []string{"of the", "p95 of", "new connections"},
	}, {
		// Every request rejected by the box before the server: the server
		// and the stages report 0 in both rounds.
		name:     "the target took no time",
		phase:    "waiting",
		eng:      withBox(serverAt(fakeRun("blocked", 0.6, 1.4, 57, 75000), 0, 0, 0), 10, "uablock", 0),
		k6:       withBox(serverAt(fakeRun("blocked", 2.9, 7.2, 38, 15000), 0, 0, 0), 10, "uablock", 0),
		want:     []string{"avg: the target took no time in either round", "p95: the target took no time in either round"},
		wantNone: []string{"target's own time"},
	}, {
		// 3 VUs reusing connections over 36 requests: 3 of 36 (8 %) open
		// one, so the p95 of connecting is a new connection's.
		name:     "p95 over new connections",
		phase:    "http_req_connecting",
		eng:      withBox(fakePhaseRun("device", "http_req_connecting", 0.03, 0.3, 1, 36), 3, "waf", 450),
		k6:       withBox(fakePhaseRun("device", "http_req_connecting", 0.4, 1.8, 2, 36), 3, "waf", 450),
		want:     []string{"p95 over new connections: 3 of 36 requests opened one with the engine, 3 of 36 with k6", "p95 of 36 and 36 requests"},
		wantNone: []string{"target's own time"},
	}, {
		// noConnectionReuse: every request opens one, so the p95 is not a
		// minority's.
		name:     "every request opens a connection",
		phase:    "http_req_connecting",
		eng:      withBox(fakePhaseRun("new", "http_req_connecting", 0.4, 1, 1, 300), 300, "waf", 0),
		k6:       withBox(fakePhaseRun("new", "http_req_connecting", 1.1, 3.6, 2, 280), 280, "waf", 0),
		want:     []string{"CPU per request"},
		wantNone: []string{"p95 over new connections"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.k6.Spec.Name = tt.eng.Spec.Name
			x := &ExperimentResult{Exp: &Experiment{ID: "x"}, Runs: []*RunResult{tt.eng}, K6: []*K6Run{{RunResult: tt.k6}}}
			var row *fidelityRow
			for _, r := range fidelity(x) {
				if fidelityRefOf(r.Phase) == tt.phase || r.Phase == tt.phase {
					row = &r
				}
			}
			if row == nil || row.Reason == "" {
				t.Fatalf("no reason for %s: %+v", tt.phase, row)
			}
			for _, w := range tt.want {
				if !strings.Contains(row.Reason, w) {
					t.Errorf("reason lacks %q:\n%s", w, row.Reason)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(row.Reason, w) {
					t.Errorf("reason has %q:\n%s", w, row.Reason)
				}
			}
		})
	}
}

func fidelityRefOf(head string) string {
	for _, p := range fidelityPhases {
		if p.head == head {
			return p.ref
		}
	}
	return ""
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
