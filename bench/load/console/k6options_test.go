package console

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/units"
)

// scenarioOrigin answers 200 after 2 ms of work (so the closed scenario's
// p(99)<1 ms threshold fails on any machine, as it did with real k6) and
// records when each request arrived, by the scenario the test's URL names.
type scenarioOrigin struct {
	mu    sync.Mutex
	first map[string]time.Duration // since the origin started
	t0    time.Time
}

func newScenarioOrigin(t *testing.T) (*scenarioOrigin, string) {
	o := &scenarioOrigin{first: map[string]time.Duration{}, t0: time.Now()}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		if _, ok := o.first[r.Header.Get("X-Scenario")]; !ok {
			o.first[r.Header.Get("X-Scenario")] = time.Since(o.t0)
		}
		o.mu.Unlock()
		time.Sleep(2 * time.Millisecond) // the origin's work
		w.Write([]byte("ok"))
	}))
	t.Cleanup(s.Close)
	return o, s.URL
}

func keySet(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestK6OptionsTwoScenarios runs k6's options — as `k6 inspect` printed them
// for testdata's two-scenario script (JSON), and the same as YAML — and
// compares the files with what real k6 v1.8.1 wrote for that script.
func TestK6OptionsTwoScenarios(t *testing.T) {
	for _, file := range []string{"../testdata/k6-inspect-scenarios.json", "../testdata/k6-options.yaml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, url := newScenarioOrigin(t)
			dir := t.TempDir()
			export, csvPath := filepath.Join(dir, "export.json"), filepath.Join(dir, "points.csv")
			results := filepath.Join(dir, "results.json")
			o := Options{ConfigFile: file, Env: map[string]string{"TARGET": url}, SummaryExport: export, Results: results,
				Out: []string{"csv=" + csvPath, "json=" + filepath.Join(dir, "points.ndjson")}, Quiet: true, SummaryMode: "full"}
			if strings.HasSuffix(file, ".json") {
				o.URL = url + "/" // k6 inspect has no url: the script had it
			}
			out, err := run(t, o)
			// The closed scenario's threshold p(99)<1 ms fails, as with real k6: exit 99.
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitThresholds || !strings.Contains(err.Error(), "http_req_duration{kind:closed}") {
				t.Fatalf("%v\n%s", err, out)
			}
			runStart, err := time.Parse(time.RFC3339Nano, readJSON(t, results)["run"].(map[string]any)["start"].(string))
			if err != nil {
				t.Fatal(err)
			}
			checkAtOnce(t, filepath.Join(dir, "points.ndjson"), runStart)
			real := readJSON(t, "../../metrics/testdata/k6-export/scenarios.json")
			ours := readJSON(t, export)
			rm, om := real["metrics"].(map[string]any), ours["metrics"].(map[string]any)
			for name, want := range rm {
				if name == "checks" {
					continue // no script, no checks
				}
				got, ok := om[name].(map[string]any)
				if !ok {
					t.Errorf("export lacks %s", name)
					continue
				}
				if g, w := keySet(got), keySet(want.(map[string]any)); strings.Join(g, ",") != strings.Join(w, ",") {
					t.Errorf("%s: keys %v, real k6 %v", name, g, w)
				}
			}
			open, closed := om["http_req_duration{scenario:open}"].(map[string]any), om["http_req_duration{kind:closed}"].(map[string]any)
			reqs := om["http_reqs"].(map[string]any)["count"].(float64)
			// 20/s for 2s: 40 arrivals, each one request (none dropped on a local origin).
			dropped := 0.0 // an arrival finding both pre-allocated VUs busy (a loaded machine) is dropped, as in k6
			if d, ok := om["dropped_iterations"].(map[string]any); ok {
				dropped = d["count"].(float64)
			}
			// 20/s for 2s: 40 arrivals, each one request or one drop.
			if open["count"].(float64)+dropped != 40 || open["count"].(float64)+closed["count"].(float64) != reqs {
				t.Errorf("open %v + closed %v requests, %v dropped, http_reqs %v (want open + dropped = 40)", open["count"], closed["count"], dropped, reqs)
			}
			if open["thresholds"].(map[string]any)["p(95)<500"] != false || closed["thresholds"].(map[string]any)["p(99)<1"] != true {
				t.Errorf("threshold verdicts (true = failed): open %v closed %v", open["thresholds"], closed["thresholds"])
			}
			checkCSV(t, csvPath, int(reqs), int(open["count"].(float64)))
			// k6's full summary has a section per scenario, with its own counts.
			for _, want := range []string{"█ SCENARIO: closed", "█ SCENARIO: open"} {
				if !strings.Contains(out, want) {
					t.Errorf("summary lacks %q", want)
				}
			}
			scen := readJSON(t, results)["scenarios"].(map[string]any)
			count := func(name string) any {
				return scen[name].(map[string]any)["metrics"].(map[string]any)["http_reqs"].(map[string]any)["values"].(map[string]any)["count"]
			}
			if count("open") != open["count"] || count("closed") != closed["count"] {
				t.Errorf("per-scenario http_reqs open %v closed %v, submetrics %v and %v", count("open"), count("closed"), open["count"], closed["count"])
			}
		})
	}
}

// checkAtOnce reads the request times of each scenario from the stream:
// closed starts at least its startTime (500ms) after the run, and open goes on
// while closed runs (both at once, not one after the other).
func checkAtOnce(t *testing.T, path string, start time.Time) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p struct {
			Metric string
			Data   struct {
				Time time.Time
				Tags map[string]string
			}
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		if p.Metric != "http_reqs" {
			continue
		}
		sc, at := p.Data.Tags["scenario"], p.Data.Time
		if f, ok := first[sc]; !ok || at.Before(f) {
			first[sc] = at
		}
		if at.After(last[sc]) {
			last[sc] = at
		}
	}
	if d := first["closed"].Sub(start); d < 500*time.Millisecond {
		t.Errorf("closed's first request ended %v after the start, want after its startTime 500ms", d)
	}
	if !last["open"].After(first["closed"]) || !last["closed"].After(first["open"]) {
		t.Errorf("not at once: open %v..%v, closed %v..%v", first["open"], last["open"], first["closed"], last["closed"])
	}
}

// checkCSV compares the header with real k6's and checks the rows' tags.
func checkCSV(t *testing.T, path string, reqs, open int) {
	t.Helper()
	realRows := readCSV(t, "../testdata/k6-scenarios.csv")
	rows := readCSV(t, path)
	if strings.Join(rows[0], ",") != strings.Join(realRows[0], ",") {
		t.Fatalf("CSV header\n%v\nreal k6\n%v", rows[0], realRows[0])
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	n := map[string]int{}
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			t.Fatalf("row %v: %d columns", r, len(r))
		}
		if r[col["metric_name"]] == "http_reqs" {
			n[r[col["scenario"]]+" "+r[col["extra_tags"]]]++
		}
	}
	if n["open kind=open"]+n["closed kind=closed"] != reqs || n["open kind=open"] != open {
		t.Errorf("http_reqs rows by scenario and tags: %v (want %d open, %d in all)", n, open, reqs)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestBadK6Options: every bad option is one clear line naming the key
// (and its line in the file) and exit 104.
func TestBadK6Options(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"k6 option with a value", "url: http://a/\nvus: 1\ndns: {ttl: 1m}\n", "line 3: dns: k6 option not supported"},
		{"exec names a function", "url: http://a/\nscenarios:\n  s:\n    executor: constant-vus\n    vus: 1\n    duration: 1s\n    exec: login\n", `scenarios.s.exec: "login"`},
		{"scenario without executor", "url: http://a/\nscenarios:\n  s:\n    vus: 1\n", "scenarios.s.executor: missing"},
		{"shortcut beside scenarios", "url: http://a/\nduration: 1s\nscenarios:\n  s:\n    executor: constant-vus\n    vus: 1\n    duration: 1s\n", "duration: the shortcut cannot be combined with scenarios"},
		{"bad scenario schedule", "url: http://a/\nscenarios:\n  s:\n    executor: constant-vus\n    vus: 1\n", "scenarios.s: invalid load config: duration"},
		{"threshold object without threshold", "url: http://a/\nvus: 1\nthresholds:\n  http_reqs: [{abortOnFail: true}]\n", "threshold: missing"},
		{"threshold object unknown key", "url: http://a/\nvus: 1\nthresholds:\n  http_reqs: [{threshold: count>1, abortOnFial: true}]\n", "abortOnFial"},
		{"summaryTrendStats", "url: http://a/\nsummaryTrendStats: [avg, p95]\n", "summaryTrendStats"},
		{"unknown submetric tag", "url: http://a/\nthresholds:\n  http_req_duration{kind:x}: [\"p(95)<1\"]\n", `unknown tag "kind"`},
		{"env not set", "url: http://a/${NOPE}\n", "${NOPE} is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "options.yaml")
			if err := os.WriteFile(file, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := run(t, Options{ConfigFile: file, Quiet: true})
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitInvalidConfig || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want exit 104 and one line with %q", err, tt.want)
			}
		})
	}
}

// TestAbortOnFail: a failing threshold with abortOnFail ends a 30 s run at
// k6's first evaluation (2 s), exit 99.
func TestAbortOnFail(t *testing.T) {
	file := filepath.Join(t.TempDir(), "options.yaml")
	os.WriteFile(file, []byte("url: "+origin(t, 503)+"\nvus: 1\nduration: 30s\nthresholds:\n  http_req_failed:\n    - {threshold: rate<0.5, abortOnFail: true}\n"), 0o644)
	start := time.Now()
	out, err := run(t, Options{ConfigFile: file, Quiet: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitThresholds || !strings.Contains(err.Error(), "abortOnFail") {
		t.Errorf("%v\n%s", err, out)
	}
	if took := time.Since(start); took < 2*time.Second || took > 6*time.Second {
		t.Errorf("aborted after %v, want at the evaluation after 2s", took)
	}
}

// TestZeroFlags: k6's meaning of --vus 0, --duration 0s, --iterations 0.
func TestZeroFlags(t *testing.T) {
	url := origin(t, 200)
	for _, tt := range []struct {
		cfg     load.Config
		changed []string
		want    string // "" = runs
	}{
		{load.Config{VUs: 0, Duration: dur(time.Second)}, []string{"vus", "duration"}, "VUs must be more than 0"},
		{load.Config{VUs: 0, Iterations: 1}, []string{"vus", "iterations"}, "VUs must be more than 0"},
		{load.Config{VUs: 1}, []string{"vus", "duration"}, "duration: should be more than 0"},
		{load.Config{}, []string{"iterations"}, "iterations (0)"},
		{load.Config{VUs: 0}, []string{"vus"}, ""}, // ignored, one iteration of one VU
	} {
		out, err := run(t, Options{URL: url, Flags: &tt.cfg, Changed: changed(tt.changed...), Quiet: true})
		var ee *ExitError
		switch {
		case tt.want == "" && (err != nil || !strings.Contains(out, "http_reqs")):
			t.Errorf("%v: %v\n%s", tt.changed, err, out)
		case tt.want != "" && (!errors.As(err, &ee) || ee.Code != ExitInvalidConfig || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v: %v, want exit 104 with %q", tt.changed, err, tt.want)
		}
	}
}

func dur(d time.Duration) units.Duration { return units.Duration(d) }

// TestRequestTimeout: a request past --timeout is counted, failed, with
// k6's tags: error_code 1050, error "request timeout", status 0 (what
// real k6 v1.8.1 writes for http.get(url, {timeout: '500ms'})).
func TestRequestTimeout(t *testing.T) {
	hang := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(hang)
	points := filepath.Join(t.TempDir(), "points.ndjson")
	out, err := run(t, Options{URL: s.URL, Flags: &load.Config{Iterations: 2, Timeout: dur(300 * time.Millisecond)},
		Changed: changed("iterations", "timeout"), Out: []string{"json=" + points}, Quiet: true})
	if err != nil || !strings.Contains(out, "100.00% 2 out of 2") {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := os.ReadFile(points)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p struct {
			Metric string
			Type   string
			Data   struct {
				Value float64
				Tags  map[string]string
			}
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		if p.Type != "Point" || p.Metric != "http_req_duration" {
			continue
		}
		n++
		tg := p.Data.Tags
		if tg["error_code"] != "1050" || tg["error"] != "request timeout" || tg["status"] != "0" || tg["expected_response"] != "false" {
			t.Errorf("tags %v", tg)
		}
		// The timeout counts from before the dial; duration starts at sending
		// (k6: 499.9 ms for a 500 ms timeout): the 300 ms less the connect.
		if p.Data.Value < 250 || p.Data.Value > 1000 {
			t.Errorf("http_req_duration %v ms, want about the 300 ms timeout", p.Data.Value)
		}
	}
	if n != 2 {
		t.Errorf("%d http_req_duration points, want 2", n)
	}
}
