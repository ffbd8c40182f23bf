package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// The seven classes of issue 32, each on a real k6 v1.8.1 run made by
// testdata/honesty/gen.sh with one cause injected on purpose. The
// expectations below were written from each case's setup before the
// analyzer was run on its files.

const honesty = "testdata/honesty/"

// analyzeCase runs `middlebench analyze --json` on one file of a case.
func analyzeCase(t *testing.T, opts Options) Report {
	t.Helper()
	var out bytes.Buffer
	opts.Out, opts.JSON = &out, true
	if opts.ServerCount == 0 {
		opts.ServerCount = -1
	}
	if err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// exactly fails unless the report names every code of want and no other.
func exactly(t *testing.T, r Report, want ...string) {
	t.Helper()
	got := r.Codes()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: codes %v, want exactly %v", r.Source, got, want)
		for _, f := range r.Findings {
			t.Logf("  %s: %s", f.Code, f.Summary)
		}
		for _, n := range r.Notes {
			t.Logf("  note: %s", n)
		}
	}
}

func noteWith(r Report, sub string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, sub) })
}

// Class 1: a server whose own time has two modes (1 request in 10 works
// 600 ms, the others 20 ms), 10 VUs, no queue anywhere: the server's time
// is its own, not a backlog; and 4 VUs on a server doing nothing take
// under a millisecond: healthy whatever their ratio to the fastest.
func TestHonestyBacklogNotFromTheFastest(t *testing.T) {
	for _, f := range []string{"points.ndjson.gz", "summary-export.json.gz", "points.csv.gz", "summary.txt"} {
		r := analyzeCase(t, Options{Files: []string{honesty + "bimodal/" + f}, Executor: "constant-vus", ServerStats: honesty + "bimodal/server-stats.json"})
		exactly(t, r, CodeServerSlow)
	}
	r := analyzeCase(t, Options{Files: []string{honesty + "fast/summary-export.json.gz"}, Executor: "constant-vus", ServerStats: honesty + "fast/server-stats.json"})
	exactly(t, r, CodeHealthy)
}

// Class 2: nginx caches the origin's 100 ms answer and replays its
// Server-Timing on every hit: the server's figure is not these requests';
// the run is judged without it (every request was a fast cache hit).
func TestHonestyReplayedServerTime(t *testing.T) {
	r := analyzeCase(t, Options{Files: []string{honesty + "cache/summary-export.json.gz"}, Executor: "constant-vus"})
	exactly(t, r, CodeHealthy)
	if !noteWith(r, "not these requests'") {
		t.Errorf("no note that the server's time is not these requests': %q", r.Notes)
	}
	if r.Phases.Outside.Present() || r.Phases.Server.Present() {
		t.Errorf("server time %+v and outside %+v shown as if true", r.Phases.Server, r.Phases.Outside)
	}
}

// Class 3: haproxy lets 2 connections at a time reach a 20 ms server (no
// worker limit of its own): 20 VUs queue in the load balancer. From k6's
// file that is a backlog, placed either in a queue the server does not
// time or in a load balancer's connection queue: the finding says both.
func TestHonestyUntimedQueueOrLoadBalancer(t *testing.T) {
	r := analyzeCase(t, Options{Files: []string{honesty + "maxconn/points.ndjson.gz"}, Executor: "constant-vus", ServerStats: honesty + "maxconn/server-stats.json"})
	exactly(t, r, CodeClosedModelBacklog)
	fd, _ := r.Finding(CodeClosedModelBacklog)
	if !slices.ContainsFunc(fd.Alternatives, func(a Alternative) bool { return strings.Contains(a.Why, "maxconn") }) {
		t.Errorf("backlog without the load balancer's connection queue as an alternative: %+v", fd.Alternatives)
	}
	if strings.Contains(fd.Summary, "not a delay of the path") {
		t.Errorf("the summary places the queue where the file cannot: %s", fd.Summary)
	}
}

// Class 4: constant-arrival-rate 15/s against a server whose work grows
// 40 ms a second; k6 allocates VUs as latency grows. Read with no
// --executor, the stream is an open model: the server is slow, there is
// no ceiling and no closed-model backlog.
func TestHonestyOpenModelFromTheStream(t *testing.T) {
	r := analyzeCase(t, Options{Files: []string{honesty + "openslow/points.ndjson.gz"}, ServerStats: honesty + "openslow/server-stats.json"})
	if r.Run.Model != ModelOpen {
		t.Errorf("model %q, want open (inferred from the stream)", r.Run.Model)
	}
	exactly(t, r, CodeServerSlow)
	// The same with 40 VUs allocated before the start: nothing dropped,
	// vus_max constant; the busy VUs follow latency while the arrivals
	// hold at 15/s.
	r = analyzeCase(t, Options{Files: []string{honesty + "openalloc/points.ndjson.gz"}, ServerStats: honesty + "openalloc/server-stats.json"})
	if r.Run.Model != ModelOpen {
		t.Errorf("openalloc: model %q, want open (inferred from the stream)", r.Run.Model)
	}
	exactly(t, r, CodeServerSlow)
}

// Class 5: a 2/s rate limiter (429) in front of the server, k6's summary
// export (no status codes) and the server's count: a limiter and a block
// cannot be told apart by status; some requests passed at a steady rate,
// so the limiter is primary and the block its alternative — never "0 of
// them with 403".
func TestHonestyFastFailuresWithoutStatus(t *testing.T) {
	r := analyzeCase(t, Options{Files: []string{honesty + "ratelimit/summary-export.json.gz"}, Executor: "constant-vus", ServerStats: honesty + "ratelimit/server-stats.json"})
	exactly(t, r, CodeRateLimited)
	fd, _ := r.Finding(CodeRateLimited)
	if !slices.ContainsFunc(fd.Alternatives, func(a Alternative) bool { return a.Code == CodeToolBlocked }) {
		t.Errorf("no tool-blocked alternative: %+v", fd.Alternatives)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Summary, "with 403") {
			t.Errorf("%s claims a 403 count the file does not have: %s", f.Code, f.Summary)
		}
	}
}

// Class 6: an accept stage (40 connections/s, backlog 2) with a new
// connection per request: the accept queue explains the connects and the
// waiting; connect-slow and path-latency would be its residual.
func TestHonestyResidualIsNotACause(t *testing.T) {
	r := analyzeCase(t, Options{Files: []string{honesty + "accept/points.ndjson.gz"}, Executor: "constant-vus", ServerStats: honesty + "accept/server-stats.json"})
	for _, c := range []string{CodeConnectSlow, CodePathLatency} {
		if _, ok := r.Finding(c); ok {
			t.Errorf("%s beside the accept queue: %v", c, r.Codes())
		}
	}
	if _, ok := r.Finding(CodeAcceptQueue); !ok {
		t.Errorf("no accept-queue: %v", r.Codes())
	}
}

// Class 7: figures the input does not have. k6's printed summary of the
// bimodal run: each phase it did not print shows "—", never 0s; its CSV
// has no step of 0 VUs; the cache run (server time set aside) is charted
// with "no server time"; evidence prints each value with one unit.
func TestHonestyMissingFigures(t *testing.T) {
	printed, err := os.ReadFile(honesty + "bimodal/summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := Run(context.Background(), Options{Files: []string{honesty + "bimodal/summary.txt"}, ServerCount: -1, Out: &text}); err != nil {
		t.Fatal(err)
	}
	for _, ph := range []string{"blocked", "connecting", "tls_handshaking", "sending", "receiving"} {
		if bytes.Contains(printed, []byte("http_req_"+ph)) {
			continue
		}
		row := regexp.MustCompile(`(?m)^  ` + ph + ` +(\S+) +(\S+)`).FindStringSubmatch(text.String())
		if row == nil || row[1] != "—" || row[2] != "—" {
			t.Errorf("phase %s not in k6's printed summary, shown as %q", ph, row)
		}
	}
	if regexp.MustCompile(`_ms=[0-9.]+(ms|s|µs|ns)\b`).MatchString(text.String()) {
		t.Errorf("evidence repeats its unit:\n%s", text.String())
	}

	r := analyzeCase(t, Options{Files: []string{honesty + "bimodal/points.csv.gz"}, Executor: "constant-vus"})
	for _, s := range r.Steps {
		if s.VUs == 0 && s.Rate == 0 {
			t.Errorf("step %q of 0 VUs in a constant-vus run of 10", s.Name)
		}
	}

	svg := filepath.Join(t.TempDir(), "cache.svg")
	if err := Run(context.Background(), Options{Files: []string{honesty + "cache/summary-export.json.gz"}, ServerCount: -1, Chart: svg, Out: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("no server time")) {
		t.Errorf("chart of a run without server time does not say so")
	}
}

// Materiality: a ramp whose requests take a fraction of a millisecond,
// with a server time that spreads 15× from its fastest to its p95 (a
// summary's only sign of a server whose time grows with load), is healthy
// whatever its ratios; the same ratios a thousand times larger are not.
func TestSubMillisecondIsHealthy(t *testing.T) {
	ramp := func(scale float64) *Observation {
		p := Phases{
			Duration: Stat{Avg: 0.3 * scale, Min: 0.05 * scale, Med: 0.25 * scale, P90: 0.4 * scale, P95: 0.45 * scale, Max: 0.9 * scale},
			Waiting:  Stat{Avg: 0.25 * scale, Min: 0.04 * scale, Med: 0.2 * scale, P90: 0.35 * scale, P95: 0.4 * scale, Max: 0.85 * scale},
			Server:   Stat{Avg: 0.2 * scale, Min: 0.02 * scale, Med: 0.15 * scale, P90: 0.28 * scale, P95: 0.3 * scale, Max: 0.8 * scale},
		}
		return &Observation{Format: FormatSummaryExport, Run: RunInfo{Executor: "ramping-vus", Model: ModelClosed, VUs: 8},
			Window: Window{Seconds: 10, VUs: 8, vusMin: 1, Requests: 20_000, Iterations: 20_000, Phases: p}}
	}
	exactly(t, Analyze(ramp(1), DefaultConfig()), CodeHealthy)
	if got := Analyze(ramp(1000), DefaultConfig()).Codes(); !slices.Contains(got, CodeServerSlow) {
		t.Errorf("the same ratios at 1000× (server p95 300 ms): %v, want server-slow", got)
	}
	// The rules' own noise floor (floor: 20ms) hides it too; with that
	// floor at 1µs, materiality alone keeps the sub-millisecond run healthy.
	cfg := DefaultConfig()
	cfg.Floor = units.Duration(time.Microsecond)
	exactly(t, Analyze(ramp(1), cfg), CodeHealthy)
	cfg.Material = MaterialConfig{}
	if got := Analyze(ramp(1), cfg).Codes(); slices.Equal(got, []string{CodeHealthy}) {
		t.Errorf("with neither floor a rule should read the ratios as a cause; got %v (the test no longer tests materiality)", got)
	}
}

// A block stops requests before the server: when the server counted every
// failed request, the fast failures of a file without statuses are not a
// block (an origin answering garbage fails as fast); without the count a
// block is named with the limiter and the broken upstream beside it.
func TestFastFailuresTheServerServed(t *testing.T) {
	obs := func(srv int64) *Observation {
		o := &Observation{Format: FormatSummaryExport, Run: RunInfo{Executor: "constant-arrival-rate", Model: ModelOpen},
			Window: Window{Seconds: 5, Requests: 200, Failed: 200, Phases: Phases{
				Duration: Stat{Avg: 1.9, Min: 0.2, Med: 0.33, P95: 2}, Waiting: Stat{Avg: 1.5, Min: 0.07, Med: 0.14, P95: 1.4}}}}
		if srv >= 0 {
			o.Server = &ServerSide{Source: "test", Requests: srv}
		}
		return o
	}
	if got := Analyze(obs(200), DefaultConfig()).Codes(); slices.Contains(got, CodeToolBlocked) {
		t.Errorf("the server counted all 200 failed requests, yet %v", got)
	}
	r := Analyze(obs(-1), DefaultConfig())
	fd, ok := r.Finding(CodeToolBlocked)
	if !ok {
		t.Fatalf("no count from the server: %v, want tool-blocked with its alternatives", r.Codes())
	}
	var alts []string
	for _, a := range fd.Alternatives {
		alts = append(alts, a.Code)
	}
	if !slices.Contains(alts, CodeRateLimited) || !slices.Contains(alts, CodeUpstreamFailing) || strings.Contains(fd.Summary, "with 403") {
		t.Errorf("alternatives %v, summary %q", alts, fd.Summary)
	}
}

// A share short of all never prints as 100.0 %, nor one above none as 0.0 %.
func TestPctNeverRoundsToAllOrNone(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1, "100.0 %"}, {0, "0.0 %"}, {0.5, "50.0 %"}, {64289.0 / 64306, "99.97 %"}, {1.0 / 64306, "0.002 %"}, {0.9996, "99.96 %"}} {
		if got := pct(tc.v); got != tc.want {
			t.Errorf("pct(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
