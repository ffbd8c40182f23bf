package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/diagnose"
)

func runCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), exitCode(err)
}

func TestAnalyzeExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"metrics": {"http_reqs": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	sample := "../../bench/diagnose/testdata/k6/summary-export.json"
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"analyze", sample}, 0, "1. healthy"},
		{[]string{"analyze", sample, "--server-count", "291", "--server-avg", "50.6ms", "--server-p95", "51.2ms"}, 0, "server_time"},
		{[]string{"analyze", bad}, 2, ""},
		{[]string{"analyze", sample, bad}, 2, "1. healthy"}, // the readable one is still analysed
		{[]string{"analyze", filepath.Join(dir, "missing.json")}, 2, ""},
		{[]string{"analyze", sample, "--config", bad}, 2, ""},
		{[]string{"analyze", sample, "--server-stats", bad, "--server-count", "3"}, 1, ""},
		{[]string{"analyze", sample, "--server-avg", "fast"}, 1, ""},
	}
	for _, tt := range tests {
		out, code := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, want %d; output lacks %q:\n%s", tt.args, code, tt.code, tt.want, out)
		}
	}
}

// A k6 stream does not reveal its executor: the help says to give it.
func TestAnalyzeHelpAsksForTheExecutorOfAStream(t *testing.T) {
	out, code := runCLI(t, "analyze", "--help")
	if code != 0 || !strings.Contains(out, "pass --executor ramping-arrival-rate") || !strings.Contains(out, "do not say which executor ran") {
		t.Errorf("exit %d; help does not say to pass the executor of an arrival-rate stream:\n%s", code, out)
	}
}

// The help lists every finding code, from the rules table.
func TestAnalyzeHelpListsEveryCode(t *testing.T) {
	out, code := runCLI(t, "analyze", "--help")
	for _, c := range diagnose.Codes() {
		if code != 0 || !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("exit %d; help does not list %s:\n%s", code, c, out)
		}
	}
}

func TestAnalyzeJSON(t *testing.T) {
	out, code := runCLI(t, "analyze", "../../bench/diagnose/testdata/k6/points.ndjson.gz", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var r struct {
		Findings []struct {
			Code, Severity, Confidence, Summary string
			Evidence                            map[string]float64
			Suspect, Next                       []string
		}
		Phases map[string]map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(r.Findings) != 1 || r.Findings[0].Code != "healthy" || r.Findings[0].Evidence["duration_avg_ms"] == 0 {
		t.Errorf("findings %+v", r.Findings)
	}
	if r.Phases["waiting"]["p(95)"] == 0 || r.Phases["server_time"]["avg"] == 0 || r.Phases["outside_server"]["avg"] == 0 {
		t.Errorf("phases %v", r.Phases)
	}
}

// TestAnalyzeChart: --chart draws the files side by side and says where.
func TestAnalyzeChart(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "phases.svg")
	out, code := runCLI(t, "analyze", "../../bench/diagnose/testdata/k6/points.ndjson.gz", "../../bench/diagnose/testdata/k6/summary-export.json", "--chart", svg)
	if code != 0 || !strings.Contains(out, "chart: "+svg) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "where the time went", "points.ndjson.gz", "summary-export.json"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
