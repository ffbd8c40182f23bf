package metrics

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/internal/timing"
)

// k6Doc reads k6's flat --summary-export (testdata, from a real k6 run) into
// a Document, typing metrics by their k6 names.
func k6Doc(t *testing.T) *Document {
	t.Helper()
	b, err := os.ReadFile("testdata/k6-console-run.json")
	if err != nil {
		t.Fatal(err)
	}
	var flat struct {
		Metrics map[string]map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(b, &flat); err != nil {
		t.Fatal(err)
	}
	d := &Document{Metrics: map[string]Metric{}}
	for name, v := range flat.Metrics {
		m := Metric{Values: v, Type: TypeTrend, Contains: ContainsTime}
		switch {
		case name == "checks" || name == "group_duration":
			continue
		case name == "http_req_failed":
			m.Type, m.Contains = TypeRate, ContainsDefault
			v["rate"] = v["value"]
		case name == "vus" || name == "vus_max":
			m.Type, m.Contains = TypeGauge, ContainsDefault
		case name == "data_sent" || name == "data_received":
			m.Type, m.Contains = TypeCounter, ContainsData
		case name == "http_reqs" || name == "iterations":
			m.Type, m.Contains = TypeCounter, ContainsDefault
		}
		d.Metrics[name] = m
	}
	return d
}

// TestSummaryMatchesK6 renders the numbers of a real k6 run and compares
// the metric lines with what k6 printed for them, byte for byte.
func TestSummaryMatchesK6(t *testing.T) {
	d := k6Doc(t)
	var b strings.Builder
	if err := WriteSummary(&b, d, SummaryOptions{Mode: "full", TrendStats: timing.FullTrendStats(), Scenario: "origin_ms50"}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	wantAll, err := os.ReadFile("testdata/k6-summary-full.txt")
	if err != nil {
		t.Fatal(err)
	}
	// Compare the TOTAL RESULTS metric lines (k6's checks lines aside:
	// middlebench has no checks).
	want := string(wantAll)
	start := strings.Index(want, "    CUSTOM")
	end := strings.Index(want, "  █ SCENARIO")
	wantTotal := strings.TrimRight(want[start:end], "\n")
	gs := strings.Index(got, "    CUSTOM")
	ge := strings.Index(got, "  █ SCENARIO")
	if gs < 0 || ge < 0 {
		t.Fatalf("summary lacks sections:\n%s", got)
	}
	gotTotal := strings.TrimRight(got[gs:ge], "\n")
	if gotTotal != wantTotal {
		gl, wl := strings.Split(gotTotal, "\n"), strings.Split(wantTotal, "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d:\n got %q\nwant %q", i, g, w)
			}
		}
	}
	if !strings.Contains(got, "  █ TOTAL RESULTS \n") || !strings.Contains(got, "  █ SCENARIO: origin_ms50 \n") {
		t.Errorf("section titles missing:\n%s", got)
	}
}

func TestSummaryCompactHidesPhases(t *testing.T) {
	var b strings.Builder
	if err := WriteSummary(&b, k6Doc(t), SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if strings.Contains(s, "http_req_waiting") || !strings.Contains(s, "http_req_duration") || strings.Contains(s, "SCENARIO") {
		t.Errorf("compact summary:\n%s", s)
	}
}

func TestSummaryThresholds(t *testing.T) {
	d := k6Doc(t)
	var ts []Threshold
	for _, s := range []string{"http_req_duration:p(95)<500", "http_req_failed:rate<0.01", "http_req_duration{expected_response:true}:avg<10"} {
		th, err := ParseThresholdFlag(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	if n := ApplyThresholds(d, ts); n != 1 {
		t.Errorf("%d failed, want 1", n)
	}
	var b strings.Builder
	if err := WriteSummary(&b, d, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"  █ THRESHOLDS \n", "    http_req_duration\n", "    ✓ 'p(95)<500' p(95)=52.13ms\n", "      ✗ 'avg<10' avg=51.37ms", "    ✓ 'rate<0.01' rate=0.00%"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
