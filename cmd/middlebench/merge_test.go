package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/atomicfile"
	"github.com/middlebench/middlebench/internal/timing"
)

func writeSegmentDoc(t *testing.T, dir, seg string, n int64, threshold string) string {
	t.Helper()
	tr := timing.NewTrend()
	for i := range n {
		tr.Add(time.Duration(i+1) * time.Millisecond)
	}
	m, err := metrics.TrendMetric(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	d := &metrics.Document{
		State: metrics.State{TestRunDurationMs: 1000},
		Run: &metrics.RunInfo{Executor: "constant-arrival-rate", URL: "http://127.0.0.1:1/", DurationMs: 1000,
			Start: "2026-12-01T10:00:00Z", ExecutionSegment: seg, ExecutionSegmentSequence: "0,1/2,1"},
		Metrics: map[string]metrics.Metric{
			"http_req_duration": m,
			"http_reqs": {Type: metrics.TypeCounter, Values: metrics.Counter{N: n}.Values(1),
				Thresholds: map[string]metrics.Verdict{threshold: {OK: true}}},
		},
		Histograms: map[string]string{"http_req_duration": enc},
	}
	path := filepath.Join(dir, strings.ReplaceAll(seg, "/", "_")+".json")
	if err := atomicfile.Write(path, d.Write); err != nil {
		t.Fatal(err)
	}
	return path
}

// Exit 0 when merged and the thresholds hold on the whole, 99 when one is
// crossed on the whole though each part passed it, 2 when refused.
func TestMergeExitStatus(t *testing.T) {
	dir := t.TempDir()
	a := writeSegmentDoc(t, dir, "0:1/2", 60, "count<100")
	b := writeSegmentDoc(t, dir, "1/2:1", 60, "count<100")
	out := filepath.Join(dir, "merged.json")
	text, code := runCLI(t, "merge", a, b, "-o", out)
	if code != 99 || !strings.Contains(text, "count<100") {
		t.Errorf("120 requests against count<100: exit %d, want 99\n%s", code, text)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("merged document not written: %v", err)
	}
	if !strings.Contains(text, out+" (") || !strings.Contains(text, ": 120 requests") {
		t.Errorf("merge prints no analysis of %s with its 120 requests\n%s", out, text)
	}
	c := writeSegmentDoc(t, dir, "0:1/2", 40, "count<100")
	d := writeSegmentDoc(t, dir, "1/2:1", 40, "count<100")
	if text, code := runCLI(t, "merge", c, d); code != 0 {
		t.Errorf("80 requests against count<100: exit %d, want 0\n%s", code, text)
	}
	if _, code, err := runCLIErr("merge", c, c); code != 2 || err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("one segment twice: exit %d (%v), want 2 naming the overlap", code, err)
	}
}
