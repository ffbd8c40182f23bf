package merge

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

var stats = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "p(99.9)"}

// partDoc is a synthetic segment's document: its samples in one trend and
// its histogram, n requests, started at start for 10 s.
func partDoc(t *testing.T, seg string, start time.Time, samples []time.Duration, thresholds map[string]metrics.Verdict) *metrics.Document {
	t.Helper()
	tr := timing.NewTrend()
	for _, d := range samples {
		tr.Add(d)
	}
	m, err := metrics.TrendMetric(tr, stats)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(samples))
	return &metrics.Document{
		State: metrics.State{TestRunDurationMs: 10_000},
		Run: &metrics.RunInfo{Executor: "constant-arrival-rate", URL: "http://127.0.0.1:8080/", DurationMs: 10_000,
			Start: start.Format(time.RFC3339Nano), ExecutionSegment: seg, ExecutionSegmentSequence: "0,1/4,1/2,3/4,1"},
		Metrics: map[string]metrics.Metric{
			"http_req_duration": m,
			"http_reqs":         {Type: metrics.TypeCounter, Values: metrics.Counter{N: n}.Values(10), Thresholds: thresholds},
			"http_req_failed":   {Type: metrics.TypeRate, Values: metrics.Rate{Passes: 1, Fails: n - 1}.Values()},
		},
		Histograms: map[string]string{"http_req_duration": enc},
	}
}

// Four parts with different distributions (one with a slow tail): the
// merged statistics are those of one trend holding every sample.
func TestMergeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	all := timing.NewTrend()
	var in []Input
	for i, seg := range []string{"0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"} {
		var s []time.Duration
		for range 1000 + 500*i {
			d := time.Duration(rng.ExpFloat64() * float64(time.Duration(i+1)*20*time.Millisecond))
			if i == 3 && rng.IntN(10) == 0 {
				d += 2 * time.Second // the slow generator's tail
			}
			s = append(s, d)
			all.Add(d)
		}
		in = append(in, Input{Name: seg, Doc: partDoc(t, seg, t0.Add(time.Duration(i)*time.Millisecond), s, nil)})
	}
	res, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := all.Values(stats)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Doc.Metrics["http_req_duration"].Values
	for _, st := range stats {
		if got[st] != want[st] {
			t.Errorf("%s: merged %v, all samples %v", st, got[st], want[st])
		}
	}
	// The average of the parts' p(95) is not it: the test tells them apart.
	avgP95 := 0.0
	for _, x := range in {
		avgP95 += x.Doc.Metrics["http_req_duration"].Values["p(95)"] / 4
	}
	if avgP95 == want["p(95)"] {
		t.Fatalf("the parts' average p(95) equals the union's: the test cannot tell them apart")
	}
	// Counts add; the rate is over the union: 10 s + 3 ms.
	n := float64(1000 + 1500 + 2000 + 2500)
	if c := res.Doc.Metrics["http_reqs"].Values; c["count"] != n || c["rate"] != n/10.003 {
		t.Errorf("http_reqs %v, want count %v rate %v", c, n, n/10.003)
	}
	if f := res.Doc.Metrics["http_req_failed"].Values; f["passes"] != 4 || f["fails"] != n-4 {
		t.Errorf("http_req_failed %v", f)
	}
	if res.Segments != "0:1" || res.Doc.Run.ExecutionSegment != "" {
		t.Errorf("coverage %q, run segment %q: want the whole test", res.Segments, res.Doc.Run.ExecutionSegment)
	}
	if res.Doc.State.TestRunDurationMs != 10_003 {
		t.Errorf("duration %v ms, want 10003", res.Doc.State.TestRunDurationMs)
	}
}

// Each part fails "count>150" alone (100 requests); the merge (200) passes,
// and "count<150" the other way round.
func TestMergeEvaluatesThresholdsOnTheWhole(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	samples := make([]time.Duration, 100)
	th := map[string]metrics.Verdict{"count>150": {OK: false}, "count<150": {OK: true}}
	res, err := Merge([]Input{
		{"a", partDoc(t, "0:1/2", t0, samples, th)},
		{"b", partDoc(t, "1/2:1", t0, samples, th)},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := res.Doc.Metrics["http_reqs"].Thresholds
	if res.Failed != 1 || !v["count>150"].OK || v["count<150"].OK {
		t.Errorf("failed %d, verdicts %v: want count>150 passed, count<150 failed", res.Failed, v)
	}
}

func TestMergeRefuses(t *testing.T) {
	t0 := time.Now()
	doc := func(seg string, edit func(*metrics.Document)) *metrics.Document {
		d := partDoc(t, seg, t0, []time.Duration{time.Millisecond}, nil)
		if edit != nil {
			edit(d)
		}
		return d
	}
	for _, c := range []struct {
		name string
		docs []*metrics.Document
		want string
	}{
		{"other URL", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Run.URL = "http://127.0.0.1:9/" })}, "run.url"},
		{"other executor", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Run.Executor = "constant-vus" })}, "run.executor"},
		{"other duration", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Run.DurationMs = 5000 })}, "run.durationMs"},
		{"other sequence", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Run.ExecutionSegmentSequence = "0,1/2,1" })}, "executionSegmentSequence"},
		{"overlap", []*metrics.Document{doc("0:1/2", nil), doc("1/4:3/4", nil)}, "overlap"},
		{"same segment twice", []*metrics.Document{doc("0:1/4", nil), doc("0:1/4", nil)}, "overlap"},
		{"a whole run and a segment", []*metrics.Document{doc("", nil), doc("1/2:1", nil)}, "overlap"},
		{"no histogram", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Histograms = nil })}, "no histogram"},
		{"not ours", []*metrics.Document{doc("0:1/2", nil), doc("1/2:1", func(d *metrics.Document) { d.Run = nil })}, "not a middlebench results document"},
	} {
		var in []Input
		for i, d := range c.docs {
			in = append(in, Input{Name: string(rune('a' + i)), Doc: d})
		}
		_, err := Merge(in)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func TestMergePartialCoverage(t *testing.T) {
	t0 := time.Now()
	res, err := Merge([]Input{
		{"a", partDoc(t, "0:1/4", t0, []time.Duration{time.Millisecond}, nil)},
		{"b", partDoc(t, "1/2:3/4", t0, []time.Duration{time.Millisecond}, nil)},
		{"c", partDoc(t, "1/4:1/2", t0, []time.Duration{time.Millisecond}, nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Segments != "0:3/4" {
		t.Errorf("coverage %q, want 0:3/4", res.Segments)
	}
}

// The merge keeps the CPU of the generator whose CPU was busiest, other
// processes' share counted: one that took 50 % while others took 45 %
// had less room than one that took 60 % alone.
func TestMergeKeepsTheBusiestCPU(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	samples := make([]time.Duration, 100)
	a, b := partDoc(t, "0:1/2", t0, samples, nil), partDoc(t, "1/2:1", t0, samples, nil)
	a.GeneratorCPU = &metrics.CPUUsage{Cores: 1, Percent: 60}
	b.GeneratorCPU = &metrics.CPUUsage{Cores: 1, Percent: 50, OthersPercent: 40, StolenPercent: 5}
	res, err := Merge([]Input{{"a", a}, {"b", b}})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Doc.GeneratorCPU; c == nil || c.Percent != 50 || c.OthersPercent != 40 || c.Busy() != 95 {
		t.Errorf("merged CPU %+v, want b's: 50 %% own, 40 %% others', 95 %% busy", c)
	}
}
