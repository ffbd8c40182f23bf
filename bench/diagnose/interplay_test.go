package diagnose

import (
	"strings"
	"testing"
)

// Rules must not fire on each other's symptoms: each case below has a
// symptom one rule owns and another could mistake for its own.
func TestRulesDoNotFireOnEachOthersSymptoms(t *testing.T) {
	tests := []struct {
		name  string
		obs   func() *Observation
		want  []string
		notes string // a note the report must carry
	}{
		{
			// A 450 ms device in front of an arrival-rate run whose VU pool
			// runs out: iterations drop because requests are slow, not
			// because the generator is busy (no CPU sign, tiny sending and
			// receiving): path-latency, not generator-saturated.
			name: "dropped iterations from a slow path are not generator saturation",
			obs: func() *Observation {
				o := e0()
				o.Run = openRun(100, 20)
				o.Dropped, o.Iterations, o.Requests, o.Seconds = 240, 360, 360, 6
				return o
			},
			want: []string{CodePathLatency},
		},
		{
			// The same, from a pinned generator that took half its CPU
			// while other processes took 45 %: its CPU was full (95 %),
			// so its arrivals went out late — saturated, though its own
			// share is half (E7's fix on a loaded machine).
			name: "a pinned generator starved by other processes",
			obs: func() *Observation {
				o := e0()
				o.Run = openRun(100, 20)
				o.Dropped, o.Iterations, o.Requests, o.Seconds = 240, 360, 360, 6
				o.CPU, o.CPUOthers = 50, 45
				return o
			},
			want: []string{CodeGeneratorSaturated},
		},
		{
			// Others took 10 %: 60 % busy in all, room left: the path's.
			name: "a pinned generator with room on its CPU",
			obs: func() *Observation {
				o := e0()
				o.Run = openRun(100, 20)
				o.Dropped, o.Iterations, o.Requests, o.Seconds = 240, 360, 360, 6
				o.CPU, o.CPUOthers = 50, 10
				return o
			},
			want: []string{CodePathLatency},
		},
		{
			// The generator busy with a closed model: CPU 97 %, sending and
			// receiving inflated with waiting, the server flat.
			name: "a busy generator without dropped iterations (closed model)",
			obs: func() *Observation {
				o := e7Top()
				o.Run, o.Dropped, o.CPU = closedRun(300), 0, 97
				return o
			},
			want: []string{CodeGeneratorSaturated},
		},
		{
			// k6's summaries have no status codes: the failures, the server's
			// lower count and an average below the server's still say 429.
			name: "rate limiting read from a summary without status codes",
			obs: func() *Observation {
				o := e5()
				o.Statuses, o.OK = nil, nil
				return o
			},
			want: []string{CodeRateLimited},
		},
		{
			// The download cap inflates receiving, not waiting: no
			// path-latency, no server-slow, no backlog.
			name: "E4's top step alone, link capacity known",
			obs: func() *Observation {
				s := e4Step(32, 40)
				return &Observation{Run: closedRun(32), Window: s.Window, DownlinkBps: 10_240_000}
			},
			want: []string{CodeDownloadLimited},
		},
		{
			name: "blocked without the server's view: 403s answered fast",
			obs: func() *Observation {
				o := e6(false)
				o.Server = nil
				return o
			},
			want: []string{CodeToolBlocked},
		},
		{
			// Every request failed fast with 502 and the server saw none:
			// the upstream is down (a proxy's answer for it), the tool is
			// not blocked.
			name: "fast 502s are not a blocked tool",
			obs:  func() *Observation { o := e6(false); o.Statuses = map[string]int64{"502": o.Requests}; return o },
			want: []string{CodeUpstreamFailing},
		},
		{
			name: "server errors are not healthy",
			obs: func() *Observation {
				o := e6(true)
				o.Failed, o.Statuses = 400, map[string]int64{"200": 780, "500": 400}
				return o
			},
			want:  nil,
			notes: "500: 400",
		},
		{
			name: "high waiting without the server's time is not called healthy",
			obs: func() *Observation {
				o := e0()
				o.Server = nil
				return o
			},
			want:  nil,
			notes: "no server time",
		},
		{
			// blocked high, connecting and TLS low: a wait for a slot (or
			// DNS), which duration does not show either.
			name: "connection wait",
			obs: func() *Observation {
				o := e1(false, false)
				o.Phases.Blocked = st(80, 95)
				o.Phases.Connecting, o.Phases.TLS = st(0.5, 0.8), Stat{}
				return o
			},
			want: []string{CodeConnectionWait, CodeHiddenConnectionCost},
		},
		{
			// A TLS 1.2 terminator far away: TLS costs two round trips,
			// twice the TCP connect: distance, not a slow terminator.
			name: "TLS at twice the connect time is distance",
			obs: func() *Observation {
				o := distance()
				o.Phases.TLS = st(300.5, 302)
				o.Phases.Blocked = st(451, 453)
				return o
			},
			want: []string{CodeConnectSlow, CodeHiddenConnectionCost, CodePathLatency},
		},
		{
			// The fake server reports reading the body (read;dur) apart
			// from its work: the upload is still the uplink's or the read
			// cap's, not a slow server.
			name: "E2 with the server's body-read time",
			obs: func() *Observation {
				o := e2()
				o.Server.Read = st(1890, 1950)
				return o
			},
			want: []string{CodeUploadLimited},
		},
		{
			// A small server delay with a closed model at low load is not a
			// backlog, even though Little's law holds (it always does).
			name: "Little's law alone is not a backlog",
			obs:  func() *Observation { return e3a() },
			want: []string{CodeServerSlow},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.obs(), DefaultConfig())
			assertCodes(t, r, tt.want...)
			if tt.notes != "" && !strings.Contains(strings.Join(r.Notes, "\n"), tt.notes) {
				t.Errorf("notes %q, want one containing %q", r.Notes, tt.notes)
			}
		})
	}
}

func TestEvidenceCarriesTheNumbers(t *testing.T) {
	tests := []struct {
		obs  *Observation
		code string
		name string
		want float64
	}{
		{e0(), CodePathLatency, "outside_server_ms", 503.01 - 51.27},
		{e0(), CodePathLatency, "server_time_avg_ms", 51.27},
		{e5(), CodeRateLimited, "rejected", 535},
		{e5(), CodeRateLimited, "server_requests", 666},
		{func() *Observation {
			o := e5()
			o.ByStatus = []Group{{Key: "429", Requests: 535, Failed: 535, Phases: Phases{Duration: st(0.4, 0.6)}}}
			return o
		}(), CodeRateLimited, "rejected_duration_avg_ms", 0.4},
		{e1(true, false), CodeTLSHandshakeSlow, "tls_p95_ms", 307},
		{e4(), CodeThroughputCeiling, "ceiling_rps", 38},
		{e6(false), CodeToolBlocked, "server_requests", 0},
		{seed3Closed(false), CodeClosedModelBacklog, "little_ms", 400.0 / 190 * 1000},
	}
	for _, tt := range tests {
		r := Analyze(tt.obs, DefaultConfig())
		f, ok := r.Finding(tt.code)
		if !ok {
			t.Errorf("%s: no finding (codes %v)", tt.code, r.Codes())
			continue
		}
		got, ok := f.Evidence.Get(tt.name)
		if !ok || got < tt.want-0.01 || got > tt.want+0.01 {
			t.Errorf("%s evidence %s = %v (present %v), want %v", tt.code, tt.name, got, ok, tt.want)
		}
		if len(f.Suspect) == 0 || len(f.Next) == 0 || f.Summary == "" {
			t.Errorf("%s: summary, suspects and next steps must be given", tt.code)
		}
	}
}

func TestPathLatencyAsksToRuleOutTheGenerator(t *testing.T) {
	o := e0()
	o.Run = openRun(6, 10)
	f, _ := Analyze(o, DefaultConfig()).Finding(CodePathLatency)
	if f.Confidence != ConfidenceMedium || !strings.Contains(f.Next[0], "generator CPU not known") {
		t.Errorf("confidence %s, next %q: want medium and a request for the generator's CPU", f.Confidence, f.Next[0])
	}
	o.CPU = 35
	f, _ = Analyze(o, DefaultConfig()).Finding(CodePathLatency)
	if f.Confidence != ConfidenceHigh || !strings.Contains(f.Next[0], "generator CPU 35 % (keep it under 80 %), 0 dropped iterations") {
		t.Errorf("confidence %s, next %q", f.Confidence, f.Next[0])
	}
}

// A generator starved by others is named as such, with the shares.
func TestStarvedGeneratorSaysWhoTookItsCPU(t *testing.T) {
	o := e0()
	o.Run = openRun(100, 20)
	o.Dropped, o.Iterations, o.Requests, o.Seconds = 240, 360, 360, 6
	o.CPU, o.CPUOthers = 50, 45
	f, ok := Analyze(o, DefaultConfig()).Finding(CodeGeneratorSaturated)
	if !ok {
		t.Fatal("no generator-saturated finding")
	}
	if !strings.Contains(f.Summary, "Its CPU was 95 % busy, 45 % of it other processes' (or stolen)") ||
		f.Suspect[0] != "other processes on the generator's CPUs" || !hasFact(f.Evidence, "generator_cpu_others_pct", 45) {
		t.Errorf("summary %q, suspects %q, evidence %v", f.Summary, f.Suspect, f.Evidence)
	}
}

func TestFindingsOrderedByTimeExplained(t *testing.T) {
	r := Analyze(distance(), DefaultConfig())
	for i := 1; i < len(r.Findings); i++ {
		if r.Findings[i].ExplainsMs > r.Findings[i-1].ExplainsMs {
			t.Fatalf("findings out of order: %v", r.Codes())
		}
	}
	if r.Codes()[0] != CodeHiddenConnectionCost {
		t.Errorf("first %s, want hidden-connection-cost (301 ms of setup)", r.Codes()[0])
	}
}

// Rule 11: the same scenario straight at the server and through the path;
// the difference, phase by phase, is the path's.
func TestCompareWithBaseline(t *testing.T) {
	direct := e0()
	direct.Phases = quick(51.1, 51.7)
	base := Analyze(direct, DefaultConfig())
	r := Analyze(e0(), DefaultConfig())
	r.Compare(base)
	if d := r.Difference.Waiting.Avg; d < 451.9 || d > 452 {
		t.Errorf("waiting difference %v, want 451.91 (the device's 450 ms and change)", d)
	}
	if r.Difference.Server.Avg != 0 || r.Difference.TLS.Present() {
		t.Errorf("server time difference %v (want 0), tls %+v (want absent)", r.Difference.Server.Avg, r.Difference.TLS)
	}
}

func hasFact(e Evidence, name string, want float64) bool {
	v, ok := e.Get(name)
	return ok && v == want
}
