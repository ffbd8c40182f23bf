package diagnose

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// The k6 files in testdata/k6 are real k6 output (see its README): run A's
// handleSummary, summary export and NDJSON describe one run; run B's
// printed summary and its export another.

func readSample(t *testing.T, name string) *Observation {
	t.Helper()
	o, err := ReadFile("testdata/k6/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestK6SamplesReadInEveryFormat(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		run    string // which run the file belongs to
	}{
		{"handle-summary.json", FormatHandleSummary, "A"},
		{"summary-export.json", FormatSummaryExport, "A"},
		{"points.ndjson.gz", FormatNDJSON, "A"},
		{"summary-export.console-run.json", FormatSummaryExport, "B"},
		{"summary-full.txt", FormatText, "B"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			o := readSample(t, tt.file)
			if o.Format != tt.format {
				t.Errorf("format %s, want %s", o.Format, tt.format)
			}
			if o.Requests != 291 || o.Failed != 0 || o.Run.VUs != 3 {
				t.Errorf("requests %d failed %d VUs %d, want 291, 0, 3", o.Requests, o.Failed, o.Run.VUs)
			}
			if !o.Phases.Server.Present() || !o.Phases.Waiting.Present() {
				t.Errorf("server_time or waiting missing: %+v", o.Phases)
			}
			// 3 VUs against a 50 ms origin on loopback: nothing stands out.
			r := Analyze(o, DefaultConfig())
			assertCodes(t, r, CodeHealthy)
		})
	}
}

// within reports whether a and b agree within HDR precision: 3
// significant digits (0.1 %), plus a nanosecond.
func within(a, b float64) bool { return math.Abs(a-b) <= 1e-3*math.Abs(b)+1e-6 }

func TestNDJSONAgreesWithSummaryExport(t *testing.T) {
	nd := readSample(t, "points.ndjson.gz")
	ex := readSample(t, "summary-export.json")
	hs := readSample(t, "handle-summary.json")
	for i := range nPhases {
		a, b, h := nd.Phases.at(i), ex.Phases.at(i), hs.Phases.at(i)
		if *b != *h {
			t.Errorf("%s: summary export %+v, handleSummary %+v", k6Names[i], *b, *h)
		}
		for _, k := range []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"} {
			x, y := *a.field(k), *b.field(k)
			if !within(x, y) {
				t.Errorf("%s %s: NDJSON %v, summary export %v (%.4f %% off)", k6Names[i], k, x, y, 100*math.Abs(x-y)/y)
			}
		}
		t.Logf("%-26s avg %.6f/%.6f p95 %.6f/%.6f", k6Names[i], a.Avg, b.Avg, a.P95, b.P95)
	}
	if nd.DataSent != ex.DataSent || nd.DataReceived != ex.DataReceived || nd.Iterations != ex.Iterations {
		t.Errorf("data %d/%d, %d/%d, iterations %d/%d", nd.DataSent, ex.DataSent, nd.DataReceived, ex.DataReceived, nd.Iterations, ex.Iterations)
	}
	// A constant-VU run: one step (no sweep), and a series of 1 s buckets.
	var inSeries int64
	for _, b := range nd.Series {
		inSeries += b.Requests
	}
	if nd.Steps != nil || len(nd.Series) != 5 || inSeries != 291 || nd.Series[2].VUs != 3 {
		t.Errorf("steps %d, series %d buckets holding %d requests", len(nd.Steps), len(nd.Series), inSeries)
	}
	if nd.Statuses["200"] != 291 || len(nd.ByStatus) != 1 || len(nd.ByName) != 1 || nd.ByName[0].Requests != 291 {
		t.Errorf("breakdowns: statuses %v, by status %d, by name %+v", nd.Statuses, len(nd.ByStatus), nd.ByName)
	}
}

func TestPrintedSummaryAgreesWithItsExport(t *testing.T) {
	tx := readSample(t, "summary-full.txt")
	ex := readSample(t, "summary-export.console-run.json")
	for i := range nPhases {
		a, b := tx.Phases.at(i), ex.Phases.at(i)
		for _, k := range []string{"avg", "med", "p(95)", "max"} {
			x, y := *a.field(k), *b.field(k)
			// k6 prints 4 significant digits at most ("51.37ms", "26.41µs").
			if math.Abs(x-y) > 0.005*math.Abs(y)+1e-6 {
				t.Errorf("%s %s: printed %v, export %v", k6Names[i], k, x, y)
			}
		}
	}
	if tx.Run.Executor != "constant-vus" || tx.Run.Model != ModelClosed {
		t.Errorf("executor %q model %q, want constant-vus, closed (from the scenario line)", tx.Run.Executor, tx.Run.Model)
	}
}

func TestThresholdsReadBothWays(t *testing.T) {
	// The export writes true for a FAILED threshold; handleSummary {ok:false}.
	export := `{"metrics":{"http_reqs":{"count":10,"rate":2},
		"http_req_duration":{"avg":600,"p(95)":900,"thresholds":{"p(95)<500":true,"avg<1000":false}}}}`
	o, err := Reader{}.Read(context.Background(), bytes.NewReader([]byte(export)), "export.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{{"http_req_duration", "avg<1000", false}, {"http_req_duration", "p(95)<500", true}}
	if len(o.Thresholds) != 2 || o.Thresholds[0] != want[0] || o.Thresholds[1] != want[1] {
		t.Errorf("thresholds %+v, want %+v", o.Thresholds, want)
	}
	hs := `{"metrics":{"http_reqs":{"type":"counter","contains":"default","values":{"count":10,"rate":2}},
		"http_req_duration":{"type":"trend","contains":"time","values":{"avg":600,"p(95)":900},
		"thresholds":{"p(95)<500":{"ok":false},"avg<1000":{"ok":true}}}}}`
	o, err = Reader{}.Read(context.Background(), bytes.NewReader([]byte(hs)), "hs.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Thresholds) != 2 || o.Thresholds[0] != want[0] || o.Thresholds[1] != want[1] {
		t.Errorf("thresholds %+v, want %+v", o.Thresholds, want)
	}
}

// k6CSV converts the NDJSON sample to k6's --out csv layout.
func k6CSV(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open("testdata/k6/points.ndjson.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	cols := []string{"check", "error", "error_code", "expected_response", "group", "method", "name", "proto", "scenario", "service", "status", "subproto", "tls_version", "url"}
	_ = w.Write(append(append([]string{"metric_name", "timestamp", "metric_value"}, cols...), "extra_tags", "metadata"))
	dec := json.NewDecoder(zr)
	for dec.More() {
		var l struct {
			Type   string
			Metric string
			Data   struct {
				Time  time.Time
				Value float64
				Tags  map[string]string
			}
		}
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		if l.Type != "Point" {
			continue
		}
		row := []string{l.Metric, strconv.FormatInt(l.Data.Time.UnixMicro(), 10), strconv.FormatFloat(l.Data.Value, 'f', 6, 64)}
		for _, c := range cols {
			row = append(row, l.Data.Tags[c])
		}
		_ = w.Write(append(row, "", ""))
	}
	w.Flush()
	return b.Bytes()
}

func TestCSVAgreesWithNDJSON(t *testing.T) {
	nd := readSample(t, "points.ndjson.gz")
	o, err := Reader{}.Read(context.Background(), bytes.NewReader(k6CSV(t)), "points.csv")
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatCSV || o.Requests != nd.Requests || o.DataReceived != nd.DataReceived {
		t.Fatalf("format %s requests %d data %d", o.Format, o.Requests, o.DataReceived)
	}
	for i := range nPhases {
		a, b := o.Phases.at(i), nd.Phases.at(i)
		if !within(a.Avg, b.Avg) || !within(a.P95, b.P95) {
			t.Errorf("%s: csv %+v, ndjson %+v", k6Names[i], *a, *b)
		}
	}
}

func TestDocumentWithHistogramsAndSteps(t *testing.T) {
	mk := func(ms ...float64) (*timing.Trend, metrics.Metric) {
		tr := timing.NewTrend()
		for _, v := range ms {
			tr.Add(time.Duration(v * float64(time.Millisecond)))
		}
		m, err := metrics.TrendMetric(tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tr, m
	}
	wait, waitM := mk(500, 502, 503, 504, 505)
	_, durM := mk(501, 503, 504, 505, 506)
	enc, err := wait.Encode()
	if err != nil {
		t.Fatal(err)
	}
	waitM.Values["p(95)"] = 0 // the histogram must win over the values
	step := metrics.Step{Name: "stage 1", StartMs: 0, EndMs: 6000, VUs: 3, Metrics: map[string]metrics.Metric{
		"http_req_waiting":  waitM,
		"http_req_duration": durM,
		"http_reqs":         {Type: "counter", Values: map[string]float64{"count": 5, "rate": 5.0 / 6}},
	}, GeneratorCPU: &metrics.CPUUsage{Percent: 12}}
	doc := &metrics.Document{
		Metrics: map[string]metrics.Metric{
			"http_req_waiting":  waitM,
			"http_req_duration": durM,
			"http_reqs":         {Type: "counter", Values: map[string]float64{"count": 5, "rate": 5.0 / 6}},
			"http_req_failed":   {Type: "rate", Values: map[string]float64{"rate": 0, "passes": 0, "fails": 5}},
		},
		Histograms:   map[string]string{"http_req_waiting": enc},
		Run:          &metrics.RunInfo{Tool: "middlebench/0.1.0", Executor: "constant-vus", VUs: 3, DurationMs: 6000},
		GeneratorCPU: &metrics.CPUUsage{Percent: 12},
		Statuses:     map[string]int64{"200": 5},
		Server:       &timing.ServerView{Requests: 5, ServerTime: map[string]float64{"avg": 51, "p(95)": 51.5}},
		Steps:        []metrics.Step{step},
	}
	o, err := FromDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatMiddlebench || o.Run.Model != ModelClosed || o.CPU != 12 || o.Seconds != 6 {
		t.Errorf("format %s model %s cpu %v seconds %v", o.Format, o.Run.Model, o.CPU, o.Seconds)
	}
	if o.Phases.Waiting.Count != 5 || !within(o.Phases.Waiting.P95, 505) {
		t.Errorf("waiting from the histogram: %+v", o.Phases.Waiting)
	}
	if len(o.Steps) != 1 || o.Steps[0].VUs != 3 || o.Steps[0].CPU != 12 || o.Steps[0].Seconds != 6 {
		t.Errorf("steps %+v", o.Steps)
	}
	if o.Server == nil || o.Server.Requests != 5 || o.Server.Time.Avg != 51 {
		t.Errorf("server %+v", o.Server)
	}
	if codes := Analyze(o, DefaultConfig()).Codes(); len(codes) != 1 || codes[0] != CodePathLatency {
		t.Errorf("codes %v, want [path-latency]", codes)
	}
	// Round trip through JSON, as the engine writes and ReadFile reads it.
	var b bytes.Buffer
	if err := doc.Write(&b); err != nil {
		t.Fatal(err)
	}
	o2, err := Reader{}.Read(context.Background(), &b, "doc.json")
	if err != nil {
		t.Fatal(err)
	}
	if o2.Format != FormatMiddlebench || o2.Phases.Waiting != o.Phases.Waiting {
		t.Errorf("read back %s %+v, want %+v", o2.Format, o2.Phases.Waiting, o.Phases.Waiting)
	}
}

// The article's own E0 output, as printed with --summary-mode=full
// --summary-trend-stats="avg,p(95)" (a device inspects 450 ms, the server
// works 50 ms): read from the text, the diagnosis is path-latency.
func TestArticlePrintedSummaryE0(t *testing.T) {
	const e0 = `
    CUSTOM
    server_time....................: avg=51.27ms  p(95)=51.6ms

    HTTP
    http_req_blocked...............: avg=33.49µs  p(95)=324.5µs
    http_req_connecting............: avg=23.77µs  p(95)=280µs
    http_req_duration..............: avg=503.1ms  p(95)=503.46ms
    http_req_failed................: 0.00%  0 out of 36
    http_req_receiving.............: avg=58.13µs  p(95)=123.75µs
    http_req_sending...............: avg=28.33µs  p(95)=46.74µs
    http_req_tls_handshaking.......: avg=0s       p(95)=0s
    http_req_waiting...............: avg=503.01ms p(95)=503.39ms
`
	o, err := Reader{}.Read(context.Background(), bytes.NewReader([]byte(e0)), "e0.txt")
	if err != nil {
		t.Fatal(err)
	}
	if o.Format != FormatText || o.Requests != 36 || o.Phases.Waiting.P95 != 503.39 || o.Phases.Server.Avg != 51.27 {
		t.Fatalf("format %s requests %d waiting %+v server %+v", o.Format, o.Requests, o.Phases.Waiting, o.Phases.Server)
	}
	r := Analyze(o, DefaultConfig())
	assertCodes(t, r, CodePathLatency)
	if f, _ := r.Finding(CodePathLatency); !within(f.ExplainsMs, 503.01-51.27) {
		t.Errorf("explains %v, want 451.74 ms outside the server", f.ExplainsMs)
	}
}
