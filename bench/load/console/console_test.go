package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/units"
)

func origin(t *testing.T, status int) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server-Timing", "app;dur=1.5")
		w.WriteHeader(status)
		w.Write([]byte("ok\n"))
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func run(t *testing.T, o Options) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	o.Stdout, o.Stderr = &out, &errOut
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := Run(ctx, o)
	return out.String() + errOut.String(), err
}

func changed(names ...string) func(string) bool {
	return func(f string) bool {
		for _, n := range names {
			if n == f {
				return true
			}
		}
		return false
	}
}

func TestRunWritesSummaryExportAndPoints(t *testing.T) {
	dir := t.TempDir()
	export, points := filepath.Join(dir, "results.json"), filepath.Join(dir, "points.ndjson.gz")
	out, err := run(t, Options{URL: origin(t, 200), Flags: &load.Config{VUs: 2, Iterations: 20}, SummaryMode: "full",
		Results: export, Out: []string{"json=" + points}, Progress: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"scenarios: (100.00%) 1 scenario, 2 max VUs", "█ TOTAL RESULTS", "http_req_waiting", "server_time", "█ SCENARIO: default"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	var d metrics.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if d.Metrics["http_reqs"].Values["count"] != 20 || d.Histograms["http_req_duration"] == "" || d.Run.Executor != load.SharedIterations {
		t.Errorf("export: %+v", d.Metrics["http_reqs"])
	}
	if fi, err := os.Stat(points); err != nil || fi.Size() == 0 {
		t.Errorf("points file: %v", err)
	}
}

func TestExitStatuses(t *testing.T) {
	url := origin(t, 503)
	_, err := run(t, Options{URL: url, Flags: &load.Config{Iterations: 3, Thresholds: load.ThresholdsOf(map[string][]string{"http_req_failed": {"rate<0.01"}})},
		Changed: changed("threshold"), NoSummary: true, Quiet: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitThresholds || !strings.Contains(err.Error(), "'http_req_failed'") {
		t.Errorf("failed threshold: %v", err)
	}
	// An unreachable target runs, as in k6: every request fails, exit 0.
	text, err := run(t, Options{URL: "http://127.0.0.1:1/", Flags: &load.Config{Iterations: 2}, Quiet: true})
	if err != nil || !strings.Contains(text, "100.00% 2 out of 2") {
		t.Errorf("unreachable: %v\n%s", err, text)
	}
	_, err = run(t, Options{URL: url, Flags: &load.Config{Executor: "constant-vus"}, Quiet: true})
	if !errors.As(err, &ee) || ee.Code != ExitInvalidConfig || !strings.Contains(err.Error(), "duration") {
		t.Errorf("bad config: %v", err)
	}
	start := time.Now()
	_, err = run(t, Options{URL: url, Flags: &load.Config{VUs: 1, Duration: units.Duration(time.Minute)}, SummaryExport: "/nonexistent/dir/x.json", Quiet: true})
	if err == nil || !strings.Contains(err.Error(), "--summary-export") || time.Since(start) > 5*time.Second {
		t.Errorf("bad export path: %v after %v (want an error before the run)", err, time.Since(start))
	}
	_, err = run(t, Options{URL: url, Flags: &load.Config{Iterations: 1}, SummaryMode: "huge", Quiet: true})
	if !errors.As(err, &ee) || ee.Code != ExitInvalidConfig {
		t.Errorf("bad summary mode: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var out bytes.Buffer
	err = Run(ctx, Options{URL: url, Flags: &load.Config{VUs: 1, Duration: units.Duration(time.Minute)}, Stdout: &out, Stderr: &out, Quiet: true})
	if !errors.As(err, &ee) || ee.Code != ExitAborted || !strings.Contains(out.String(), "http_reqs") {
		t.Errorf("Ctrl-C: %v; output:\n%s", err, out.String())
	}
}

func TestScenarioFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte("url: "+origin(t, 200)+"\nvus: 2\niterations: 4\nuserAgent: Grafana k6/1.4.2\n"), 0o644)
	flags := &load.Config{Iterations: 6}
	cfg, err := buildConfig(Options{ConfigFile: file, Flags: flags, Changed: changed("iterations")})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Iterations != 6 || cfg.VUs != 2 || *cfg.UserAgent != "Grafana k6/1.4.2" {
		t.Errorf("merged %+v", cfg)
	}
}

func TestFlagValues(t *testing.T) {
	var stages []load.Stage
	sf := StageFlag{Stages: &stages}
	if err := sf.Set("10s:5,20s:10"); err != nil || len(stages) != 2 || sf.String() != "10s:5,20s:10" {
		t.Errorf("stages %v %v", stages, err)
	}
	if err := sf.Set("10s"); err == nil {
		t.Error("bad stage accepted")
	}
	var h map[string]string
	if err := (HeaderFlag{Headers: &h}).Set("X-Test: a:b"); err != nil || h["X-Test"] != "a:b" {
		t.Errorf("header %v %v", h, err)
	}
	if err := (HeaderFlag{Headers: &h}).Set("no colon"); err == nil {
		t.Error("bad header accepted")
	}
	var th map[string][]load.ThresholdExpr
	if err := (ThresholdFlag{Thresholds: &th}).Set("http_req_duration{expected_response:true}:p(95)<500"); err != nil || th["http_req_duration{expected_response:true}"][0].Threshold != "p(95)<500" {
		t.Errorf("threshold %v %v", th, err)
	}
	if err := (ThresholdFlag{Thresholds: &th}).Set("http_req_failed:rate<<1"); err == nil {
		t.Error("bad threshold accepted")
	}
}
