package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/internal/units"
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
func fakeRun(name string, avg, p95, cpu float64, reqs int64) *record.RunResult {
	return fakePhaseRun(name, "http_req_waiting", avg, p95, cpu, reqs)
}

// fakePhaseRun is fakeRun for any phase; every other phase is 1 ms. Its
// CPU is cpu % of 2 cores over 5 s.
func fakePhaseRun(name, phase string, avg, p95, cpu float64, reqs int64) *record.RunResult {
	ms := map[string]metrics.Metric{}
	for _, p := range fidelityPhases {
		ms[p.ref] = metrics.Metric{Values: map[string]float64{"avg": 1, "p(95)": 1}}
	}
	ms[phase] = metrics.Metric{Values: map[string]float64{"avg": avg, "p(95)": p95}}
	secs := cpu / 100 * 2 * 5
	return &record.RunResult{Spec: &experiment.RunSpec{Name: name}, Result: &load.Result{Requests: reqs},
		Doc: &metrics.Document{Metrics: ms, GeneratorCPU: &metrics.CPUUsage{UserSeconds: secs * 0.75, SystemSeconds: secs * 0.25, Cores: 2, Percent: cpu}}}
}

func TestFidelityTable(t *testing.T) {
	x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e6"},
		Runs: []*record.RunResult{fakeRun("blocked", 0.2, 0.3, 97, 200000)},
		K6:   []*record.K6Run{{RunResult: fakeRun("blocked", 1.5, 3, 99, 40000)}}}
	rows := Fidelity(x)
	if len(rows) != len(fidelityPhases) {
		t.Fatalf("%d rows, want one per phase (%d)", len(rows), len(fidelityPhases))
	}
	var waiting FidelityRow
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
	writeFidelity(&b, &record.Summary{Experiments: []*record.ExperimentResult{x}, K6Version: "k6 v1.8.1", LoadBefore: "1, 2, 3", LoadAfter: "4, 5, 6"})
	md := b.String()
	// Both generators at 97 and 99 % of their cores: the two figures out
	// are exempt, and counted apart.
	for _, want := range []string{"## Real k6 as a second generator", "k6 v1.8.1", "12 of 14 agree; 2 exempt because both generators were CPU-bound or the run generator-bound (e6 blocked: both generators CPU-bound (each ≥ 90 % of its cores over the run, or with the target it drives ≥ 90 % of the machine's CPUs: replay engine 97 %, k6 99 %)); 0 do not.", "1, 2, 3", "| e6 | blocked | waiting | 200µs / 1.5ms ⚪"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
}

// rounds are n paired re-measured rounds of run "blocked" with these
// waiting figures (engine avg, k6 avg; p95 twice the avg), both
// generators at cpu % of their cores.
func rounds(cpu float64, figs ...[2]float64) []record.FairRound {
	var out []record.FairRound
	for i, f := range figs {
		out = append(out, record.FairRound{Run: "blocked", K6First: i%2 == 1, Load: [2]string{"1, 1, 1", "2, 2, 2"},
			Eng: fakeRun("blocked", f[0], 2*f[0], cpu, 100000), K6: &record.K6Run{RunResult: fakeRun("blocked", f[1], 2*f[1], cpu, 100000)}})
	}
	return out
}

// TestFidelityAgain: a row out of tolerance is judged by the medians of
// its paired rounds; the replay's figures stay in the table.
func TestFidelityAgain(t *testing.T) {
	tests := []struct {
		name   string
		replay [2]float64
		rounds []record.FairRound
		ok     bool
		want   []string
	}{{
		// k6 10 % above the engine but in one round that happens to agree:
		// the medians, 100 and 110, are 10 % apart.
		name:   "a generator systematically 10 % off",
		replay: [2]float64{100, 110},
		rounds: rounds(50, [2]float64{100, 110}, [2]float64{102, 103}, [2]float64{98, 112}),
		want: []string{"median of 3: 100ms / 110ms ≠; 200ms / 220ms ≠ (rounds, avg; p95: 1) 100ms / 110ms; 200ms / 220ms (engine first), 2) 102ms / 103ms; 204ms / 206ms (k6 first), 3) 98ms / 112ms; 196ms / 224ms (engine first); load 1, 1, 1 → 2, 2, 2; round 1:",
			"| e6 | blocked | waiting | 100ms / 110ms ≠ | 200ms / 220ms ≠ |", "12 of 14 agree; 0 exempt because both generators were CPU-bound or the run generator-bound; 2 do not."},
	}, {
		// The first round's k6 disturbed (140 ms): the medians are 100 and 101.
		name:   "noise in one round",
		replay: [2]float64{100, 130},
		rounds: rounds(50, [2]float64{100, 140}, [2]float64{100, 101}, [2]float64{101, 100}),
		ok:     true,
		want:   []string{"median of 3: 100ms / 101ms ✅; 200ms / 202ms ✅", "| e6 | blocked | waiting | 100ms / 130ms ✅ | 200ms / 260ms ✅ |", "14 of 14 agree", "In the replay 12 agree.", "2 of those 2 do"},
	}, {
		// Off in every round, but both generators at 95 % of their cores
		// in the replay and in each round.
		name:   "both CPU-bound throughout",
		replay: [2]float64{0.2, 1.5},
		rounds: rounds(95, [2]float64{0.25, 1.6}, [2]float64{0.3, 1.7}, [2]float64{0.25, 1.5}),
		want:   []string{"12 of 14 agree; 2 exempt because both generators were CPU-bound or the run generator-bound (e6 blocked: both generators CPU-bound (each ≥ 90 % of its cores over the run, or with the target it drives ≥ 90 % of the machine's CPUs: replay engine 95 %, k6 95 %; round 1 engine 95 %, k6 95 %; round 2 engine 95 %, k6 95 %; round 3 engine 95 %, k6 95 %)); 0 do not.", "| e6 | blocked | waiting | 200µs / 1.5ms ⚪ |"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e6"},
				Runs: []*record.RunResult{fakeRun("blocked", tt.replay[0], 2*tt.replay[0], 95, 100000)},
				K6:   []*record.K6Run{{RunResult: fakeRun("blocked", tt.replay[1], 2*tt.replay[1], 95, 100000)}},
				Fair: tt.rounds,
			}
			var waiting FidelityRow
			for _, r := range Fidelity(x) {
				if r.Phase == "waiting" {
					waiting = r
				}
			}
			if waiting.Fair == nil || (waiting.Fair.AvgOK && waiting.Fair.P95OK) != tt.ok {
				t.Fatalf("re-measured: %+v, want agreeing %v", waiting.Fair, tt.ok)
			}
			var b bytes.Buffer
			writeFidelity(&b, &record.Summary{Experiments: []*record.ExperimentResult{x}, K6Version: "k6 v1.8.1"})
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestMedian: the middle of an odd count, the mean of the two middle ones
// of an even count, NaN when a round lacks the figure.
func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		v    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{140, 100, 101}, 101}, {[]float64{4, 1, 2, 3}, 2.5}, {[]float64{1, math.NaN(), 2}, math.NaN()}, {nil, math.NaN()}} {
		if got := median(tt.v); got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("median(%v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// TestBoundShare: a sweep's generator is CPU-bound when the steps where it
// used ≥ 90 % of its cores hold half of its requests.
func TestBoundShare(t *testing.T) {
	sweep := func(steps ...[2]float64) *record.RunResult { // share %, requests
		r := fakeRun("sweep", 1, 2, 50, 0)
		for _, s := range steps {
			r.Doc.Steps = append(r.Doc.Steps, metrics.Step{GeneratorCPU: &metrics.CPUUsage{Percent: s[0]},
				Metrics: map[string]metrics.Metric{"http_reqs": {Values: map[string]float64{"count": s[1]}}}})
		}
		return r
	}
	for _, tt := range []struct {
		name string
		r    *record.RunResult
		want float64
	}{
		// 400 of 1000 requests at 20–69 %, 600 at 90–93 %: the least share
		// among the busiest steps holding 500 is 91 %.
		{"past the knee", sweep([2]float64{22, 100}, [2]float64{42, 100}, [2]float64{69, 200}, [2]float64{91, 200}, [2]float64{93, 200}, [2]float64{92, 200}), 91},
		// The busy steps hold 300 of 1000: the half reaches into a 60 % step.
		{"busy a minority", sweep([2]float64{60, 700}, [2]float64{95, 300}), 60},
		{"one step: the run's share", fakeRun("one", 1, 2, 77, 10), 77},
	} {
		if got := boundShare(tt.r); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	// The engine past its knee, k6 busy in a minority of its requests: the
	// row says both shares and is not exempt.
	eng, k6 := sweep([2]float64{22, 400}, [2]float64{91, 300}, [2]float64{93, 300}), sweep([2]float64{60, 700}, [2]float64{95, 300})
	eng.Doc.Metrics["http_req_waiting"] = metrics.Metric{Values: map[string]float64{"avg": 100, "p(95)": 200}}
	k6.Doc.Metrics["http_req_waiting"] = metrics.Metric{Values: map[string]float64{"avg": 150, "p(95)": 300}}
	eng.Spec.Name, k6.Spec.Name = "sweep", "sweep"
	x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e7"}, Runs: []*record.RunResult{eng}, K6: []*record.K6Run{{RunResult: k6}}}
	for _, r := range Fidelity(x) {
		if r.Phase != "waiting" {
			continue
		}
		if want := "CPU in the busiest steps that hold half of the requests: engine 91 %, k6 60 %"; !strings.Contains(r.Reason, want) {
			t.Errorf("reason lacks %q: %s", want, r.Reason)
		}
		if r.Exempt != "" {
			t.Errorf("exempt with k6 at 60 %%: %s", r.Exempt)
		}
	}
}

// TestFidelityWhy: a row out of tolerance names what the two rounds
// measured differently, from the figures each round configured here.
func TestFidelityWhy(t *testing.T) {
	serverAt := func(r *record.RunResult, work, workP95, queue float64) *record.RunResult {
		r.Server.ServerTime = map[string]float64{"avg": work, "p(95)": workP95}
		r.Server.QueueTime = map[string]float64{"avg": queue, "p(95)": queue}
		return r
	}
	withBox := func(r *record.RunResult, accepted int64, kind string, delay float64) *record.RunResult {
		r.Path = &proxy.PathStats{Boxes: []proxy.BoxStats{{Name: "waf", Accepted: accepted,
			Stages: []proxy.StageStats{{Index: 1, Kind: kind, Delay: map[string]float64{"avg": delay, "p(95)": delay}}}}}}
		return r
	}
	tests := []struct {
		name     string
		phase    string
		eng, k6  *record.RunResult
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
			x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "x"}, Runs: []*record.RunResult{tt.eng}, K6: []*record.K6Run{{RunResult: tt.k6}}}
			var row *FidelityRow
			for _, r := range Fidelity(x) {
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

// TestExemptWhenTheRunIsCPUBound: E6's case — each generator's own share
// is what the device beside it leaves (60–68 %), but the generator and its
// target together kept the machine's CPUs busy in the replay and in every
// round: exempt, saying both figures. One round at 80 % is not.
func TestExemptWhenTheRunIsCPUBound(t *testing.T) {
	withRun := func(rs []record.FairRound, run ...[2]float64) []record.FairRound {
		for i := range rs {
			rs[i].Eng.RunCPU, rs[i].K6.RunCPU = run[i][0], run[i][1]
		}
		return rs
	}
	for _, tt := range []struct {
		name   string
		rounds []record.FairRound
		want   string // "" = not exempt
		not    string // the row's reason then
	}{
		{"busy throughout", withRun(rounds(64, [2]float64{0.25, 1.6}, [2]float64{0.3, 1.7}, [2]float64{0.25, 1.5}), [2]float64{96, 95}, [2]float64{97, 94}, [2]float64{95, 96}),
			"round 2 engine and its target 97 %, k6 and its target 94 % of the machine's CPUs (the generators alone 64 % and 64 % of their cores)", ""},
		{"one round not", withRun(rounds(64, [2]float64{0.25, 1.6}, [2]float64{0.3, 1.7}, [2]float64{0.25, 1.5}), [2]float64{96, 95}, [2]float64{80, 94}, [2]float64{95, 96}), "",
			"not exempt as CPU-bound: in round 2 the generators' own shares were 64 % and 64 %, and the machine's CPUs were 80 % and 94 % busy with them and their targets (the bar: 90 % for both, by either measure)"},
		{"unmeasured", withRun(rounds(64, [2]float64{0.25, 1.6}, [2]float64{0.3, 1.7}, [2]float64{0.25, 1.5}), [2]float64{math.NaN(), 95}, [2]float64{97, 94}, [2]float64{95, 96}), "",
			"in round 1 the generators' own shares were 64 % and 64 %, and the machine's CPUs were unmeasured and 95 % busy"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			eng, k6 := fakeRun("blocked", 0.2, 0.4, 68, 100000), fakeRun("blocked", 1.5, 3, 64, 100000)
			eng.RunCPU, k6.RunCPU = 98, 97
			x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e6"}, Runs: []*record.RunResult{eng}, K6: []*record.K6Run{{RunResult: k6}}, Fair: tt.rounds}
			for _, r := range Fidelity(x) {
				if r.Phase != "waiting" {
					continue
				}
				if tt.want == "" && r.Exempt != "" {
					t.Errorf("exempt: %s", r.Exempt)
				}
				if !strings.Contains(r.Reason, tt.not) || (tt.not == "") != !strings.Contains(r.Reason, "not exempt") {
					t.Errorf("reason %q, want one saying %q", r.Reason, tt.not)
				}
				if tt.want != "" && !strings.Contains(r.Exempt, tt.want) {
					t.Errorf("exemption %q lacks %q", r.Exempt, tt.want)
				}
			}
		})
	}
}

// TestExemptWhenGeneratorBound: E6's blocked run as it measured (each
// generator near 58 % of its cores, k6 at 9 times the engine's CPU per
// request, the server and stages at 0): exempt as generator-bound only for
// a closed model with no think time whose target reports 0 for the phase
// with both generators in the replay and in every round.
func TestExemptWhenGeneratorBound(t *testing.T) {
	zero := map[string]float64{"avg": 0, "p(95)": 0}
	for _, tt := range []struct {
		name   string
		load   load.Config
		server func(i int) map[string]float64 // the server's time in pair i (0: the replay), both generators
		exempt bool
	}{
		{"closed loop, target at 0", load.Config{VUs: 10, Duration: units.Duration(5 * time.Second)}, func(int) map[string]float64 { return zero }, true},
		{"arrival rate", load.Config{Rate: units.Rate{N: 1000, Per: time.Second}, Duration: units.Duration(5 * time.Second)}, func(int) map[string]float64 { return zero }, false},
		{"think time", load.Config{VUs: 10, Duration: units.Duration(5 * time.Second), Think: units.Fixed(time.Millisecond)}, func(int) map[string]float64 { return zero }, false},
		{"server busy in one round", load.Config{VUs: 10, Duration: units.Duration(5 * time.Second)}, func(i int) map[string]float64 {
			if i == 2 {
				return map[string]float64{"avg": 0.05, "p(95)": 0.2}
			}
			return zero
		}, false},
		{"server silent", load.Config{VUs: 10, Duration: units.Duration(5 * time.Second)}, func(int) map[string]float64 { return nil }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := &experiment.RunSpec{Name: "blocked", Load: tt.load}
			set := func(i int, rs ...*record.RunResult) {
				for _, r := range rs {
					r.Spec, r.Server.ServerTime = spec, tt.server(i)
				}
			}
			eng, k6 := fakeRun("blocked", 0.18, 0.23, 57, 282419), fakeRun("blocked", 1.0, 3.2, 58, 42923)
			set(0, eng, k6)
			rs := rounds(58, [2]float64{0.18, 1.1}, [2]float64{0.17, 1.0}, [2]float64{0.2, 1.3})
			for i := range rs {
				set(i+1, rs[i].Eng, rs[i].K6.RunResult)
			}
			x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e6"}, Runs: []*record.RunResult{eng}, K6: []*record.K6Run{{RunResult: k6}}, Fair: rs}
			for _, r := range Fidelity(x) {
				if r.Phase != "waiting" {
					continue
				}
				if got := r.Exempt != ""; got != tt.exempt {
					t.Fatalf("exempt %v (%q), want %v; reason %q", got, r.Exempt, tt.exempt, r.Reason)
				}
				if tt.exempt && !strings.Contains(r.Exempt, "generator-bound") {
					t.Errorf("exemption %q does not say generator-bound", r.Exempt)
				}
				if !tt.exempt && !strings.Contains(r.Reason, "not exempt as CPU-bound") {
					t.Errorf("reason %q lacks the CPU shares", r.Reason)
				}
			}
		})
	}
}

// The k6 table's verdict counts only the checks made; a skipped one is
// listed with its reason, neither passed nor failed.
func TestK6VerdictShowsSkippedApart(t *testing.T) {
	kr := &record.K6Run{RunResult: &record.RunResult{Checks: []record.Check{
		{What: "finding download-limited", OK: true, Value: math.NaN()},
		{What: "finding throughput-ceiling", Skipped: "not shown by k6's summary export (the file has no steps)"},
		{What: "stream: finding throughput-ceiling", OK: true},
		{What: "stream: step last tps", Msg: "step last tps = 42.51, want [32 .. 40.80]"},
	}}}
	got := k6Verdict(kr)
	want := "❌ 2/3: step last tps = 42.51, want [32 .. 40.80]; ⏭ 1 skipped: finding throughput-ceiling: not shown by k6's summary export (the file has no steps)"
	if got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e4"}, K6: []*record.K6Run{kr}}
	kr.Spec = &experiment.RunSpec{Name: "sweep"}
	if f := x.Failures(); len(f) != 1 || !strings.Contains(f[0], "step last tps") {
		t.Errorf("failures %q, want only the failed band", f)
	}
}
