package diagnose

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/metrics"
)

// Synthetic observations built from the article's numbers (the article,
// E0–E7, the distance calculation, seeds 003 and 004). Where the article
// gives only an average or a p95, the other statistics are set close to it
// (a narrow distribution, as the article's fixed delays make).

// st is a narrow timing: min and med near avg, max just above p95.
func st(avg, p95 float64) Stat {
	return Stat{Avg: avg, Min: 0.98 * avg, Med: avg, P90: p95, P95: p95, P99: 1.005 * p95, Max: 1.01 * p95}
}

// req builds phases from sending, waiting and receiving (duration is their
// sum, as k6 defines it) and connection setup.
func req(blocked, connecting, tls, sending, waiting, receiving Stat) Phases {
	return Phases{
		Blocked: blocked, Connecting: connecting, TLS: tls,
		Sending: sending, Waiting: waiting, Receiving: receiving,
		Duration: Stat{
			Avg: sending.Avg + waiting.Avg + receiving.Avg,
			Min: sending.Min + waiting.Min + receiving.Min,
			Med: sending.Med + waiting.Med + receiving.Med,
			P90: sending.P90 + waiting.P90 + receiving.P90,
			P95: sending.P95 + waiting.P95 + receiving.P95,
			P99: sending.P99 + waiting.P99 + receiving.P99,
			Max: sending.Max + waiting.Max + receiving.Max,
		},
	}
}

// quick is a request that spends its time waiting: tiny connection setup,
// sending and receiving.
func quick(waitAvg, waitP95 float64) Phases {
	return req(st(0.033, 0.324), st(0.024, 0.28), Stat{}, st(0.028, 0.047), st(waitAvg, waitP95), st(0.058, 0.124))
}

func server(requests int64, avg, p95 float64) *ServerSide {
	return &ServerSide{Source: "test", Requests: requests, Time: st(avg, p95)}
}

func closedRun(vus int) RunInfo {
	return RunInfo{Executor: "constant-vus", Model: ModelClosed, VUs: vus}
}

func openRun(rate float64, maxVUs int) RunInfo {
	return RunInfo{Executor: "constant-arrival-rate", Model: ModelOpen, Rate: rate, MaxVUs: maxVUs}
}

// e0 is E0 / E3b: a device inspects 450 ms, the server works 50 ms; 3 VUs,
// 6 s, 36 requests.
func e0() *Observation {
	return &Observation{Run: closedRun(3), Window: Window{
		Seconds: 6, VUs: 3, Requests: 36, Iterations: 36, IterAvg: 503.2,
		Phases: quick(503.01, 503.39), Server: server(36, 51.27, 51.6),
	}}
}

// e1 is E1: a TLS device that starts the handshake 300 ms late.
func e1(delay, reuse bool) *Observation {
	tlsAvg, tlsP95, tlsMax := 6.2, 6.5, 7.0
	if delay {
		tlsAvg, tlsP95, tlsMax = 306.2, 307, 308
	}
	conn, tls := st(0.8, 0.9), Stat{Avg: tlsAvg, Min: tlsAvg - 0.5, Med: tlsAvg, P90: tlsP95, P95: tlsP95, P99: tlsP95, Max: tlsMax}
	blocked := Stat{Avg: 1 + tlsAvg, Min: tlsAvg, Med: 1 + tlsAvg, P90: 1 + tlsP95, P95: 1 + tlsP95, P99: 1 + tlsP95, Max: 1.5 + tlsMax}
	if reuse { // 100 requests, 3 VUs: only the first request of each VU connects
		conn = Stat{Avg: 0.024, Max: 0.8, P99: 0.75}
		tls = Stat{Avg: 3 * tlsAvg / 100, Max: tlsMax, P99: 0.9 * tlsMax}
		blocked = Stat{Avg: 3 * (1 + tlsAvg) / 100, Min: 0.001, Med: 0.004, P90: 0.006, P95: 0.008, P99: 0.9 * tlsMax, Max: 1.5 + tlsMax}
	}
	p := req(blocked, conn, tls, st(0.05, 0.08), st(54.1, 54.6), st(0.09, 0.15))
	return &Observation{Run: closedRun(3), Window: Window{
		Seconds: 6, VUs: 3, Requests: 100, Iterations: 100, Phases: p, Server: server(100, 50.5, 51),
	}}
}

// e2 is E2: the server reads bodies at 8,192 KB/s in all; 2 VUs upload
// 8 MB each.
func e2() *Observation {
	p := req(st(0.05, 0.3), st(0.03, 0.2), Stat{}, st(1190, 1230), st(716, 760), st(0.1, 0.2))
	return &Observation{Run: closedRun(2), Window: Window{
		Seconds: 20, VUs: 2, Requests: 21, Iterations: 21, DataSent: 21 * 8_000_000, DataReceived: 21 * 150,
		Phases: p, Server: server(21, 1.5, 2.5),
	}}
}

// e2Linux: a 4 MiB body on Linux loopback, mostly swallowed by the send
// buffer: ~85 % of its time lands in waiting.
func e2Linux() *Observation {
	p := req(st(0.05, 0.3), st(0.03, 0.2), Stat{}, st(75, 90), st(440, 470), st(0.1, 0.2))
	return &Observation{Run: closedRun(2), Window: Window{
		Seconds: 20, VUs: 2, Requests: 78, Iterations: 78, DataSent: 78 * 4 << 20, DataReceived: 78 * 150,
		Phases: p, Server: server(78, 1.2, 2),
	}}
}

// e3a is E3a: the server itself works 500 ms.
func e3a() *Observation {
	return &Observation{Run: closedRun(3), Window: Window{
		Seconds: 6, VUs: 3, Requests: 36, Iterations: 36, IterAvg: 503.5,
		Phases: quick(503.4, 504), Server: server(36, 502.1, 502.6),
	}}
}

// e4Step is one VU step of E4: 256 KB responses, egress capped at
// 10,240 KB/s for all connections, server ~101 ms.
func e4Step(vus int, tps float64) Step {
	lat := float64(vus) / tps * 1000
	recv := lat - 101.2
	p := req(st(0.02, 0.1), st(0.01, 0.05), Stat{}, st(0.05, 0.1), st(101.2, 102), st(recv, 1.05*recv))
	secs := 10.0
	n := int64(tps * secs)
	return Step{Name: strconv.Itoa(vus) + " VUs", Window: Window{
		Seconds: secs, VUs: float64(vus), Requests: n, Iterations: n, IterAvg: lat + 0.1,
		DataReceived: n * 256_000, Phases: p, Server: server(n, 101, 101.8),
	}}
}

// e4 is E4's VU sweep 1 → 32; the whole run aggregates the steps.
func e4() *Observation {
	steps := []Step{e4Step(1, 8), e4Step(2, 15.5), e4Step(4, 30), e4Step(8, 38), e4Step(16, 40), e4Step(32, 40)}
	o := &Observation{Run: RunInfo{Executor: "ramping-vus", Model: ModelClosed, VUs: 32}, Steps: steps, DownlinkBps: 10_240_000}
	o.Window = aggregate(steps)
	return o
}

// aggregate approximates a whole run from its steps: counts add, averages
// weigh by requests, p95 is the largest step's.
func aggregate(steps []Step) Window {
	var w Window
	var srv ServerSide
	for _, s := range steps {
		w.Seconds += s.Seconds
		w.Requests += s.Requests
		w.Failed += s.Failed
		w.Iterations += s.Iterations
		w.Dropped += s.Dropped
		w.DataSent += s.DataSent
		w.DataReceived += s.DataReceived
		w.VUs = max(w.VUs, s.VUs)
		if s.Server != nil {
			srv.Requests += s.Server.Requests
		}
	}
	for i := range nPhases {
		var a Stat
		for _, s := range steps {
			x := s.Phases.at(i)
			wgt := float64(s.Requests) / float64(w.Requests)
			a.Avg += wgt * x.Avg
			a.Med += wgt * x.Med
			a.P95 = max(a.P95, x.P95)
			a.Max = max(a.Max, x.Max)
			if a.Min == 0 || x.Min < a.Min {
				a.Min = x.Min
			}
		}
		*w.Phases.at(i) = a
	}
	var it float64
	for _, s := range steps {
		it += float64(s.Iterations) / float64(max(w.Iterations, 1)) * s.IterAvg
		if s.Server != nil {
			wgt := float64(s.Server.Requests) / float64(max(srv.Requests, 1))
			srv.Time.Avg += wgt * s.Server.Time.Avg
			srv.Time.P95 = max(srv.Time.P95, s.Server.Time.P95)
			srv.Queue.Avg += wgt * s.Server.Queue.Avg
			srv.Queue.P95 = max(srv.Queue.P95, s.Server.Queue.P95)
		}
	}
	w.IterAvg = it
	if srv.Time.Present() {
		w.Server = &srv
	}
	return w
}

// e5 is E5: 200/s offered for 6 s, a device lets 100/s through per
// wall-clock second and answers the rest 429 at once.
func e5() *Observation {
	all := req(st(0.02, 0.05), st(0.01, 0.05), Stat{}, st(0.03, 0.06), st(28.4, 51.5), st(0.07, 0.12))
	ok := req(st(0.02, 0.05), st(0.01, 0.05), Stat{}, st(0.03, 0.06), st(50.9, 51.5), st(0.07, 0.12))
	return &Observation{Run: openRun(200, 100), Window: Window{
		Seconds: 6, Rate: 200, Requests: 1201, Failed: 535, Iterations: 1201,
		Statuses: map[string]int64{"200": 666, "429": 535},
		Phases:   all, OK: &ok, Server: server(666, 50, 50.6),
	}}
}

// e6 is E6: the device blocks k6's User-Agent; 240 k requests, all 403.
func e6(allowListed bool) *Observation {
	if allowListed {
		return &Observation{Run: closedRun(10), Window: Window{
			Seconds: 6, VUs: 10, Requests: 1180, Iterations: 1180, IterAvg: 50.9,
			Statuses: map[string]int64{"200": 1180}, Phases: quick(50.7, 51.3), Server: server(1180, 50.2, 50.6),
		}}
	}
	p := req(st(0.002, 0.004), st(0.0005, 0), Stat{}, st(0.01, 0.02), st(0.08, 0.15), st(0.01, 0.02))
	return &Observation{Run: closedRun(10), Window: Window{
		Seconds: 6, VUs: 10, Requests: 243_444, Failed: 243_444, Iterations: 243_444, CPU: 96,
		Statuses: map[string]int64{"403": 243_444}, Phases: p,
		Server: &ServerSide{Source: "test", Requests: 0},
	}}
}

// e7Step is one arrival-rate step of E7: the script burns 4 ms of CPU per
// response, the server works 20 ms.
func e7Step(rate, p95, tps float64, dropped int64, waitAvg, recvAvg, sendAvg float64) Step {
	p := req(st(0.01, 0.05), st(0.005, 0.02), Stat{}, st(sendAvg, 2*sendAvg), st(waitAvg, p95-recvAvg-sendAvg), st(recvAvg, 2*recvAvg))
	secs := 10.0
	n := int64(tps * secs)
	return Step{Name: "rate " + fmtRate(rate), Window: Window{
		Seconds: secs, Rate: rate, Requests: n, Iterations: n, Dropped: dropped,
		Phases: p, Server: server(n, 21, 24),
	}}
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// e7 is E7's sweep 1,000 → 3,600/s: lines together up to 2,800/s, then k6's
// p95 leaves the server's (93 ms at 3,200/s, 191 ms at 3,600/s) with
// 3,148 dropped iterations.
func e7() *Observation {
	steps := []Step{
		e7Step(1000, 25, 1000, 0, 21.2, 0.1, 0.03),
		e7Step(1800, 25.5, 1800, 0, 21.3, 0.1, 0.03),
		e7Step(2400, 26, 2400, 0, 21.5, 0.2, 0.04),
		e7Step(2800, 27, 2800, 0, 22, 0.3, 0.05),
		e7Step(3200, 93, 2950, 1000, 45, 7, 1.1),
		e7Step(3600, 191, 3000, 2148, 61, 13, 1.9),
	}
	o := &Observation{Run: RunInfo{Executor: "ramping-arrival-rate", Model: ModelOpen, MaxVUs: 1000}, Steps: steps}
	o.Window = aggregate(steps)
	return o
}

// e7SlowConnect is E7 where the saturated generator took 112 ms to open
// one of the connections it added (max only; p95 0): its own slowness,
// not a connect-slow of the path.
func e7SlowConnect() *Observation {
	o := e7()
	for _, w := range []*Window{&o.Window, &o.Steps[len(o.Steps)-1].Window} {
		w.Phases.Connecting = Stat{Avg: 1.1, Med: 0, P90: 0, P95: 0, P99: 0, Max: 112.7}
		w.Phases.Blocked = Stat{Avg: 1.2, Med: 0.01, P90: 0.02, P95: 0.03, P99: 0.05, Max: 113}
	}
	return o
}

// e7Top is E7's top step alone, as a single run.
func e7Top() *Observation {
	s := e7Step(3600, 191, 3000, 3148, 61, 13, 1.9)
	return &Observation{Run: openRun(3600, 1000), Window: s.Window}
}

// distance is the article's calculation: RTT 150 ms, TLS 1.3 (one round
// trip), server 120 ms, a new connection per request.
func distance() *Observation {
	p := req(st(301, 303), st(150.2, 151), st(150.5, 152), st(0.05, 0.1), st(270.3, 272), st(0.2, 0.4))
	return &Observation{Run: closedRun(5), Window: Window{
		Seconds: 30, VUs: 5, Requests: 260, Iterations: 260, Phases: p, Server: server(260, 120, 121),
	}}
}

// seed3Open is seed 003's open-model sweep: p95 at 60/100/140/170/190/210
// req/s: 43.0/40.1/45.6/56.3/94.5/4,068 ms; capacity ~190–200/s.
func seed3Open() *Observation {
	rates := []float64{60, 100, 140, 170, 190, 210}
	p50 := []float64{38.9, 38.1, 40.8, 46.1, 49.1, 1505}
	p95 := []float64{43.0, 40.1, 45.6, 56.3, 94.5, 4068}
	tps := []float64{60, 100, 140, 170, 189, 195}
	var steps []Step
	for i, r := range rates {
		n := int64(tps[i] * 90)
		p := req(st(0.02, 0.05), st(0.01, 0.03), Stat{}, st(0.03, 0.06), Stat{Avg: 1.05 * p50[i], Med: p50[i], Min: 30, P95: p95[i], Max: 1.5 * p95[i]}, st(0.05, 0.1))
		steps = append(steps, Step{Name: "rate " + fmtRate(r), Window: Window{Seconds: 90, Rate: r, Requests: n, Iterations: n, Phases: p}})
	}
	o := &Observation{Run: RunInfo{Executor: "ramping-arrival-rate", Model: ModelOpen}, Steps: steps}
	o.Window = aggregate(steps)
	return o
}

// seed3Closed is seed 003's closed model: 400 VUs at ~190/s: about
// 400 / 190 ≈ 2.1 s of backlog per request; the first requests saw ~45 ms.
func seed3Closed(withServer bool) *Observation {
	p := quick(2100, 2300)
	p.Duration.Min, p.Waiting.Min = 45, 45
	o := &Observation{Run: closedRun(400), Window: Window{
		Seconds: 90, VUs: 400, Requests: 17_100, Iterations: 17_100, IterAvg: 2105, Phases: p,
	}}
	if withServer { // the fake server: 10 workers × 50 ms, its queue reported
		o.Server = &ServerSide{Source: "test", Requests: 17_100, Time: st(50.3, 51), Queue: st(2045, 2240)}
	}
	return o
}

// seed3ClosedSweep is the closed VU sweep 10 → 400 against that server.
func seed3ClosedSweep() *Observation {
	vus := []float64{10, 50, 100, 400}
	tps := []float64{147, 190, 190, 190}
	var steps []Step
	for i, v := range vus {
		lat := v / tps[i] * 1000
		p := quick(lat, 1.1*lat)
		p.Duration.Min = 45
		n := int64(tps[i] * 60)
		steps = append(steps, Step{Name: fmtRate(v) + " VUs", Window: Window{
			Seconds: 60, VUs: v, Requests: n, Iterations: n, IterAvg: lat + 0.2, Phases: p,
		}})
	}
	o := &Observation{Run: RunInfo{Executor: "ramping-vus", Model: ModelClosed, VUs: 400}, Steps: steps}
	o.Window = aggregate(steps)
	return o
}

// seed4 is seed 004: a CPU-bound login server (bcrypt cost 11) on 1 core:
// ~7 RPS, 2 s on average, the APM shows the same 2 s.
func seed4() *Observation {
	return &Observation{Window: Window{
		Seconds: 900, Requests: 6300, Phases: quick(2000, 3100), Server: server(6300, 1950, 3000),
	}}
}

// seed4Sweep: server time itself grows with load (VUs 1 → 15).
func seed4Sweep() *Observation {
	vus := []float64{1, 5, 10, 15}
	srv := []float64{180, 700, 1400, 2100}
	tps := []float64{5.5, 7, 7, 7}
	var steps []Step
	for i, v := range vus {
		p := quick(srv[i]+2, 1.3*srv[i]+2)
		p.Duration.Min = 175
		n := int64(tps[i] * 120)
		steps = append(steps, Step{Name: fmtRate(v) + " VUs", Window: Window{
			Seconds: 120, VUs: v, Requests: n, Iterations: n, IterAvg: v / tps[i] * 1000, Phases: p, Server: server(n, srv[i], 1.3*srv[i]),
		}})
	}
	o := &Observation{Run: RunInfo{Executor: "ramping-vus", Model: ModelClosed, VUs: 15}, Steps: steps}
	o.Window = aggregate(steps)
	return o
}

func TestArticleExperiments(t *testing.T) {
	tests := []struct {
		name string
		obs  *Observation
		want []string
	}{
		{"E0 device inspects 450ms, server 50ms", e0(), []string{CodePathLatency}},
		{"E1 no delay, new connection per request", e1(false, false), []string{CodeHealthy}},
		{"E1 delay, new connection per request", e1(true, false), []string{CodeTLSHandshakeSlow, CodeHiddenConnectionCost}},
		{"E1 delay with reuse: only max/p99 show it", e1(true, true), []string{CodeTLSHandshakeSlow}},
		{"E2 8MB uploads against a read cap", e2(), []string{CodeUploadLimited}},
		{"E2 4MiB upload drained during waiting (Linux)", e2Linux(), []string{CodeUploadLimited}},
		{"E3a slow server", e3a(), []string{CodeServerSlow}},
		{"E3b inspecting device", e0(), []string{CodePathLatency}},
		{"E4 download cap, VU sweep", e4(), []string{CodeDownloadLimited, CodeThroughputCeiling}},
		{"E5 fixed-window 429s", e5(), []string{CodeRateLimited}},
		{"E6 k6's UA blocked", e6(false), []string{CodeToolBlocked}},
		{"E6 allow-listed", e6(true), []string{CodeHealthy}},
		{"E7 generator saturation, rate sweep", e7(), []string{CodeGeneratorSaturated}},
		{"E7 top step alone", e7Top(), []string{CodeGeneratorSaturated}},
		{"E7 with one slow connect as VUs were added", e7SlowConnect(), []string{CodeGeneratorSaturated}},
		{"distance: RTT 150ms, new connections", distance(), []string{CodeConnectSlow, CodeHiddenConnectionCost, CodePathLatency}},
		{"seed 003 open sweep: flat then cliff", seed3Open(), []string{CodeThroughputCeiling}},
		{"seed 003 closed 400 VUs, k6 only", seed3Closed(false), []string{CodeClosedModelBacklog}},
		{"seed 003 closed 400 VUs, server queue known", seed3Closed(true), []string{CodeClosedModelBacklog}},
		{"seed 003 closed VU sweep", seed3ClosedSweep(), []string{CodeClosedModelBacklog, CodeThroughputCeiling}},
		{"seed 004 CPU-bound server, APM figures", seed4(), []string{CodeServerSlow}},
		// The server's own time grows with its CPU shared by more requests:
		// the server's time, not a queue outside it (issue 32; the real
		// k6 run, k6runs/s004-vu_sweep_1_8, expects server-slow alone).
		{"seed 004 server time grows with load", seed4Sweep(), []string{CodeServerSlow, CodeThroughputCeiling}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.obs, DefaultConfig())
			assertCodes(t, r, tt.want...)
		})
	}
}

// assertCodes checks the exact set of codes (what fires and, by
// exclusion, what must not).
func assertCodes(t *testing.T, r Report, want ...string) {
	t.Helper()
	got := r.Codes()
	g, w := slices.Clone(got), slices.Clone(want)
	sort.Strings(g)
	sort.Strings(w)
	if !slices.Equal(g, w) {
		var b strings.Builder
		_ = r.WriteText(&b)
		t.Fatalf("codes %v, want %v\n%s", got, want, b.String())
	}
	for _, f := range r.Findings {
		t.Logf("%s [%s/%s] explains %s: %s", f.Code, f.Severity, f.Confidence, metrics.FormatMs(f.ExplainsMs), f.Summary)
	}
}
