package console

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// keyOrder returns an object's keys in the order they were written.
func keyOrder(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestOutJSONToStdoutWithTags: --out json alone writes the NDJSON to
// stdout, as k6 does; --tag adds a tag to every sample, in k6's sorted
// place among the system tags.
func TestOutJSONToStdoutWithTags(t *testing.T) {
	out, err := run(t, Options{URL: origin(t, 200), Flags: &load.Config{Iterations: 2, Thresholds: load.ThresholdsOf(map[string][]string{"http_req_failed": {"rate<0.01"}})},
		Changed: changed("iterations", "threshold"), Tags: map[string]string{"zeta": "1", "alpha": "x,y"}, Out: []string{"json"}, Quiet: true, NoSummary: true})
	if err != nil {
		t.Fatal(err)
	}
	reqs := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var p struct {
			Metric string
			Type   string
			Data   struct{ Tags json.RawMessage }
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("stdout holds more than NDJSON: %q", line)
		}
		switch {
		case p.Type == "Metric" && p.Metric == "http_req_failed":
			// Real k6 v1.8.1 lists a metric's own thresholds in its Metric line.
			if want := `{"type":"Metric","data":{"name":"http_req_failed","type":"rate","contains":"default","thresholds":["rate<0.01"],"submetrics":null},"metric":"http_req_failed"}`; line != want {
				t.Errorf("Metric line\n%s\nreal k6\n%s", line, want)
			}
		case p.Type == "Point" && p.Metric == "http_reqs":
			reqs++
			// Real k6 v1.8.1 with --tag zeta=1 --tag alpha=x,y:
			want := "alpha,expected_response,group,method,name,proto,scenario,status,url,zeta"
			if got := strings.Join(keyOrder(t, p.Data.Tags), ","); got != want {
				t.Errorf("http_reqs tags %s, k6 writes %s", got, want)
			}
		case p.Type == "Point" && p.Metric == "iterations":
			if got := strings.Join(keyOrder(t, p.Data.Tags), ","); got != "alpha,group,scenario,zeta" {
				t.Errorf("iterations tags %s, k6 writes alpha,group,scenario,zeta", got)
			}
		}
	}
	if reqs != 2 {
		t.Errorf("%d http_reqs points, want 2", reqs)
	}
}

// TestNoThresholds: --no-thresholds neither fails the run nor reports them.
func TestNoThresholds(t *testing.T) {
	export := filepath.Join(t.TempDir(), "export.json")
	_, err := run(t, Options{URL: origin(t, 503), Flags: &load.Config{Iterations: 2, Thresholds: load.ThresholdsOf(map[string][]string{"http_req_failed": {"rate<0.01"}})},
		Changed: changed("threshold", "iterations"), NoThresholds: true, SummaryExport: export, Quiet: true})
	if err != nil {
		t.Fatalf("--no-thresholds: %v", err)
	}
	if m := readJSON(t, export)["metrics"].(map[string]any)["http_req_failed"].(map[string]any); m["thresholds"] != nil {
		t.Errorf("thresholds reported: %v", m)
	}
}

// TestHTTPDebugAndProgress: --http-debug logs each request and response
// head to stderr as k6's logfmt lines; without a terminal the progress
// block is printed each second on stdout, as k6 does.
func TestHTTPDebugAndProgress(t *testing.T) {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := Run(ctx, Options{URL: origin(t, 200) + "/x", Flags: &load.Config{VUs: 1, Duration: dur(2200 * time.Millisecond)},
		HTTPDebug: "headers", NoSummary: true, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], `time="`) || !strings.Contains(lines[0], `level=info msg="Request:\nGET /x HTTP/1.1\nHost: `) ||
		!strings.Contains(lines[0], "scenario=default source=http-debug vu=1") || !strings.Contains(lines[1], `msg="Response:\nHTTP/1.1 200 OK\n`) {
		t.Errorf("http-debug lines:\n%s", strings.Join(lines[:min(2, len(lines))], "\n"))
	}
	if n := strings.Count(stdout.String(), "\nrunning ("); n < 3 { // at 1 s, 2 s and the final block
		t.Errorf("%d progress blocks on stdout, want 3:\n%s", n, stdout.String())
	}
	if !strings.Contains(stdout.String(), "default ✓ [ 100% ] 1 VUs  2.2s") { // constant-vus: the VUs configured, as k6

		t.Errorf("no final progress line:\n%s", stdout.String())
	}
}

// TestSummaryTrendStatsInExport: --summary-trend-stats decides a trend's
// keys in --summary-export, as in k6 (p(99.9) and count included).
func TestSummaryTrendStatsInExport(t *testing.T) {
	export := filepath.Join(t.TempDir(), "export.json")
	if _, err := run(t, Options{URL: origin(t, 200), Flags: &load.Config{Iterations: 3}, SummaryTrendStats: []string{"avg", "p(99.9)", "count"},
		SummaryExport: export, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, export)["metrics"].(map[string]any)["http_req_waiting"].(map[string]any)
	if got := strings.Join(keySet(m), ","); got != "avg,count,p(99.9)" || m["count"] != 3.0 {
		t.Errorf("http_req_waiting %v, want exactly avg, p(99.9), count = 3", m)
	}
}
