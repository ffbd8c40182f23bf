package record

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/metrics"
)

// timeline builds a 2-CPU timeline from t0, one sample a second: in second
// i other processes used others[i] CPU-seconds and the hypervisor stole
// stolen[i] (nil: none), beside 0.6 CPU-seconds of the experiment's own.
func timeline(t0 time.Time, others []float64, stolen []float64) *LoadTimeline {
	tl := &LoadTimeline{CPUs: 2}
	var s LoadSample
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

func TestTimelineOver(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	tl := timeline(t0, []float64{0, 0, 1, 1}, []float64{0, 0, 0, 0.2})
	tests := []struct {
		name          string
		a, b          time.Time
		others, stole float64
	}{
		{"quiet seconds", t0, t0.Add(2 * time.Second), 0, 0},
		{"one CPU taken of two", t0.Add(2 * time.Second), t0.Add(3 * time.Second), 50, 0},
		{"with steal", t0.Add(3 * time.Second), t0.Add(4 * time.Second), 50, 10},
		{"the whole", t0, t0.Add(4 * time.Second), 25, 2.5},
		// A window between samples widens to the samples around it.
		{"widened", t0.Add(2500 * time.Millisecond), t0.Add(2600 * time.Millisecond), 50, 0},
	}
	for _, tt := range tests {
		d := tl.over(tt.a, tt.b)
		if !d.Known || math.Abs(d.Others-tt.others) > 1e-9 || math.Abs(d.Stolen-tt.stole) > 1e-9 {
			t.Errorf("%s: got %+v, want others %.1f stolen %.1f", tt.name, d, tt.others, tt.stole)
		}
	}
	if d := (*LoadTimeline)(nil).whole(); d.Known || d.busy() {
		t.Errorf("no timeline: got %+v, want unknown and not busy", d)
	}
}

// The rule, check by check: a failure above its band is the machine's when
// the window was busy, the experiment's when quiet; below its band it is
// always the experiment's.
func TestJudge(t *testing.T) {
	above := Check{What: "step last server_time p(95)", Value: 64.88, Lo: math.Inf(-1), Hi: 25, Msg: "over"}
	below := Check{What: "http_req_blocked p(95)", Value: 280, Lo: 300, Hi: 330, Msg: "under"}
	finding := Check{What: "finding generator-saturated", Value: math.NaN(), Lo: math.Inf(-1), Hi: math.Inf(1), Band: "absent", Msg: "appeared"}
	nearBelow := Check{What: "http_req_duration avg", Value: 51.89, Lo: 57.76, Hi: 70.60, Relative: true, Msg: "under a busy reference"}
	failedRequests := Check{What: "failed requests", Value: 3, Lo: math.Inf(-1), Hi: 0, Side: loadNeither, Msg: "3 × 503"}
	fewIterations := Check{What: "iterations count", Value: 4007, Lo: 4799, Hi: 4801, Side: loadLowers, Msg: "short"}
	tooManyTPS := Check{What: "step last tps", Value: 45, Lo: 32, Hi: 40.8, Side: loadLowers, Msg: "over the cap"}
	quiet := Disturbance{Others: 3, Stolen: 1, Known: true}
	busy := Disturbance{Others: 43, Known: true}
	stolen := Disturbance{Others: 2, Stolen: 9, Known: true}
	tests := []struct {
		name     string
		c        Check
		d        Disturbance
		wantBusy bool
	}{
		{"above its band while quiet fails", above, quiet, false},
		{"above its band while busy is not measured", above, busy, true},
		{"steal counts with other processes", above, stolen, true},
		{"below its band while busy fails at once", below, busy, false},
		{"a finding while busy is not measured", finding, busy, true},
		{"unknown disturbance fails", above, Disturbance{}, false},
		{"below a band measured near another run, while busy, is not measured", nearBelow, busy, true},
		{"below a band measured near another run, while quiet, fails", nearBelow, quiet, false},
		{"failed requests while busy fail", failedRequests, busy, false},
		{"work done below its band while busy is not measured", fewIterations, busy, true},
		{"work done below its band while quiet fails", fewIterations, quiet, false},
		{"work done above its band while busy fails at once", tooManyTPS, busy, false},
	}
	for _, tt := range tests {
		c := Judge(tt.c, tt.d)
		if c.Busy != tt.wantBusy || c.Failed() == tt.wantBusy {
			t.Errorf("%s: Busy=%v failed=%v, want Busy=%v", tt.name, c.Busy, c.Failed(), tt.wantBusy)
		}
	}
	run := fakeSource{"http_req_duration avg": 51.89, "server server_time avg": 50}
	others := map[string]metricSource{"no delay": fakeSource{"http_req_duration avg": 64.18}}
	for _, tt := range []struct {
		band     experiment.Band
		relative bool
	}{
		{experiment.Band{Metric: "http_req_duration avg", Near: "no delay", Within: "10%"}, true},
		{experiment.Band{Metric: "http_req_duration avg", Min: "@{server server_time avg} + 5ms"}, true},
		{experiment.Band{Metric: "http_req_duration avg", Min: "55ms"}, false},
	} {
		if c := checkBand(tt.band, run, others); c.Relative != tt.relative || c.OK {
			t.Errorf("%+v: Relative=%v OK=%v, want Relative=%v and a failure", tt.band, c.Relative, c.OK, tt.relative)
		}
	}
	for metric, want := range map[string]loadSide{
		"http_req_blocked avg": loadRaises, "step last server_time p(95)": loadRaises, "outside avg": loadRaises,
		"tps": loadLowers, "step last tps": loadLowers, "iterations count": loadLowers, "http_reqs count": loadLowers,
		"dropped_iterations count": loadRaises, "statuses 429": loadNeither, "server requests": loadNeither,
		"server server_time avg": loadRaises, "stage fw.ratelimit passed": loadNeither, "stage waf.waf delay avg": loadRaises, "stage lb.tls extra.handshakes": loadNeither, "http_req_failed rate": loadNeither,
	} {
		if got := sideOf(metric); got != want {
			t.Errorf("sideOf(%q) = %v, want %v", metric, got, want)
		}
	}
	if c := Judge(Check{OK: true, Value: 1}, busy); c.Busy || c.Failed() {
		t.Errorf("a check that held: %+v", c)
	}
}

// e7Run is E7's last run in miniature: a sweep of two 5 s steps with a band
// on the last step's server p95 (want ≤ 25, measured 64.88), over a
// timeline whose other processes took one of the two CPUs during the
// seconds of busy.
func e7Run(t0 time.Time, busy []bool, lastP95 float64) *RunResult {
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
	return &RunResult{Spec: spec, Origin: t0, Load: timeline(t0, others, nil),
		Doc: &metrics.Document{Steps: []metrics.Step{step("1", 0, 5000, 12), step("2", 5000, 10000, lastP95)}}}
}

func TestCheckAllJudgesTheFailingStep(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	last := []bool{false, false, false, false, false, true, true, true, true, true}
	first := []bool{true, true, true, true, true}
	tests := []struct {
		name     string
		busy     []bool
		p95      float64
		want     Outcome
		wantNote string
	}{
		{"busy during the failing step", last, 64.88, OutcomeNotMeasured, "50 % of its CPUs taken by other processes during the failing step"},
		{"busy only during another step", first, 64.88, OutcomeFail, ""},
		{"busy, and within its band", last, 20, OutcomePass, ""},
	}
	// Below a bound read off another step that was busy: E7 with k6 read
	// step last p95 663.3 under 2 × the first step's 465.6 taken at 91 %.
	r := e7Run(t0, first, 20)
	r.Spec.Expect.Bands = []experiment.Band{{Metric: "step last server_time p(95)", Min: "2 * @{step first server_time p(95)}"}}
	r.Doc.Steps[0].Metrics["server_time"].Values["p(95)"] = 465.6
	r.Doc.Steps[1].Metrics["server_time"].Values["p(95)"] = 663.3
	CheckAll([]*RunResult{r})
	if got := OutcomeOf(r.Checks); got != OutcomeNotMeasured {
		t.Errorf("below a bound read off a busy step: %v, want not measured (%+v)", got, r.Checks)
	}
	for _, tt := range tests {
		r := e7Run(t0, tt.busy, tt.p95)
		CheckAll([]*RunResult{r})
		if got := OutcomeOf(r.Checks); got != tt.want {
			t.Errorf("%s: outcome %v, want %v (%+v)", tt.name, got, tt.want, r.Checks)
			continue
		}
		if tt.wantNote != "" {
			x := &ExperimentResult{Exp: &experiment.Experiment{ID: "E7"}, Runs: []*RunResult{r}}
			if m := x.NotMeasured(); len(m) != 1 || !strings.Contains(m[0], tt.wantNote) {
				t.Errorf("%s: not measured %q, want one naming %q", tt.name, m, tt.wantNote)
			}
			if x.Passed() || len(x.Failures()) != 0 {
				t.Errorf("%s: passed=%v failures=%q, want neither", tt.name, x.Passed(), x.Failures())
			}
		}
	}
}

// The loop: a busy failure is measured again, at most maxAttempts times in
// all; a quiet failure or a value below its band ends it at once.
func TestRemeasure(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	busyLast := []bool{false, false, false, false, false, true, true, true, true, true}
	quiet := make([]bool, 10)
	type attempt struct {
		busy []bool
		p95  float64
	}
	tests := []struct {
		name     string
		attempts []attempt
		want     Outcome
		wantN    int
	}{
		{"quiet failure fails at once", []attempt{{quiet, 64.88}}, OutcomeFail, 1},
		{"busy, then quiet and within", []attempt{{busyLast, 64.88}, {quiet, 20}}, OutcomePass, 2},
		{"busy, then a quiet failure", []attempt{{busyLast, 64.88}, {quiet, 64.88}}, OutcomeFail, 2},
		{"busy every time", []attempt{{busyLast, 64.88}, {busyLast, 70}, {busyLast, 80}, {quiet, 20}}, OutcomeNotMeasured, 3},
	}
	for _, tt := range tests {
		got, n := Remeasure(MaxAttempts, func(i int) Outcome {
			a := tt.attempts[i-1]
			r := e7Run(t0, a.busy, a.p95)
			CheckAll([]*RunResult{r})
			return OutcomeOf(r.Checks)
		})
		if got != tt.want || n != tt.wantN {
			t.Errorf("%s: %v after %d attempts, want %v after %d", tt.name, got, n, tt.want, tt.wantN)
		}
	}
	// Below its band while the machine is busy: FAIL, never measured again.
	calls := 0
	got, _ := Remeasure(MaxAttempts, func(int) Outcome {
		calls++
		c := Judge(Check{What: "http_req_blocked p(95)", Value: 280, Lo: 300, Hi: 330}, Disturbance{Others: 60, Known: true})
		return OutcomeOf([]Check{c})
	})
	if got != OutcomeFail || calls != 1 {
		t.Errorf("below its band while busy: %v after %d attempts, want FAIL after 1", got, calls)
	}
}
