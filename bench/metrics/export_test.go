package metrics

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// realExport reads a --summary-export real k6 v1.8.1 wrote (testdata/k6-export/*.js say how).
func realExport(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/k6-export/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// exportDoc is a results document with one metric of each type, a
// submetric and thresholds that pass and fail, as a run produces it.
func exportDoc(t *testing.T, trends []string, thresholds [][2]string, wantFailed int) *Document {
	t.Helper()
	d := &Document{Metrics: map[string]Metric{}, Histograms: map[string]string{}}
	for _, name := range trends {
		tr := timing.NewTrend()
		for i := 1; i <= 100; i++ {
			tr.Add(time.Duration(i) * time.Millisecond)
		}
		m, err := TrendMetric(tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Metrics[name] = m
		if d.Histograms[name], err = tr.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	d.Metrics["http_reqs"] = Metric{Type: TypeCounter, Contains: ContainsDefault, Values: Counter{N: 100}.Values(2)}
	d.Metrics["http_req_failed"] = Metric{Type: TypeRate, Contains: ContainsDefault, Values: Rate{Passes: 0, Fails: 100}.Values()}
	g := Gauge{}
	g.Set(2)
	d.Metrics["vus"] = Metric{Type: TypeGauge, Contains: ContainsDefault, Values: g.Values()}
	ts := []Threshold{}
	for _, s := range thresholds {
		th, err := ParseThreshold(s[0], s[1])
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	if n := ApplyThresholds(d, ts); n != wantFailed {
		t.Fatalf("%d thresholds failed, want %d", n, wantFailed)
	}
	return d
}

func TestSummaryExportHasRealK6Keys(t *testing.T) {
	for _, tt := range []struct {
		file       string
		stats      []string
		trends     []string
		thresholds [][2]string // as the file's script sets them
		failed     int
	}{
		{"default.json", nil, // k6's default summaryTrendStats
			[]string{"http_req_duration", "http_req_waiting"},
			[][2]string{{"http_req_duration", "p(95)<500"}, {"http_req_duration", "avg<1"}, {"http_reqs", "count>0"},
				{"vus", "value>0"}, {"http_req_failed", "rate<0.5"}}, 1},
		{"scenarios.json", []string{"avg", "p(99.9)", "count", "min"},
			[]string{"http_req_duration", "http_req_duration{scenario:open}", "http_req_duration{kind:closed}"},
			[][2]string{{"http_req_duration{scenario:open}", "p(95)<500"}, {"http_req_duration{kind:closed}", "p(99)<1"}, {"http_req_failed", "rate<0.01"}}, 1},
	} {
		t.Run(tt.file, func(t *testing.T) {
			real := realExport(t, tt.file)
			e, err := NewSummaryExport(exportDoc(t, tt.trends, tt.thresholds, tt.failed), tt.stats)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := e.Write(&buf); err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if g, w := keys(got), keys(real); !equal(g, w) {
				t.Errorf("top-level keys %v, real k6 has %v", g, w)
			}
			rg, wrg := got["root_group"].(map[string]any), real["root_group"].(map[string]any)
			if !equal(keys(rg), keys(wrg)) || rg["id"] != wrg["id"] {
				t.Errorf("root_group %v, real k6 %v", rg, wrg)
			}
			gm, rm := got["metrics"].(map[string]any), real["metrics"].(map[string]any)
			for name, v := range gm {
				want, ok := rm[name]
				if !ok {
					t.Fatalf("real k6 file has no %s", name)
				}
				if g, w := keys(v), keys(want); !equal(g, w) {
					t.Errorf("%s: keys %v, real k6 has %v", name, g, w)
				}
				if th, ok := want.(map[string]any)["thresholds"]; ok {
					gth := v.(map[string]any)["thresholds"].(map[string]any)
					for src, failed := range th.(map[string]any) {
						if gth[src] != failed {
							t.Errorf("%s threshold %q: failed=%v, real k6 %v", name, src, gth[src], failed)
						}
					}
				}
			}
		})
	}
}

func TestSummaryExportValues(t *testing.T) {
	d0 := exportDoc(t, []string{"http_req_duration"}, [][2]string{{"http_req_failed", "rate<0.5"}}, 0)
	e, err := NewSummaryExport(d0, []string{"avg", "p(99.9)", "count"})
	if err != nil {
		t.Fatal(err)
	}
	d := e.Metrics["http_req_duration"]
	// 1..100 ms: avg 50.5, count 100, p(99.9) between the 99th and 100th value.
	if d["avg"] != 50.5 || d["count"] != 100.0 || d["p(99.9)"].(float64) < 99 || d["p(99.9)"].(float64) > 100 {
		t.Errorf("trend %v", d)
	}
	if f := e.Metrics["http_req_failed"]; f["passes"] != 0.0 || f["fails"] != 100.0 || f["value"] != 0.0 {
		t.Errorf("rate %v", f)
	}
	if c := e.Metrics["http_reqs"]; c["count"] != 100.0 || c["rate"] != 50.0 {
		t.Errorf("counter %v", c)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
