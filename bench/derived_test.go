package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
)

func TestFixedWindowSum(t *testing.T) {
	second := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name  string
		start time.Time
		want  int64
	}{
		// The article: 200/s offered, 100/s allowed, 6 s, begun two thirds into a second:
		// 66 in the first partial window, 5 × 100, then 100 of the last partial one.
		{name: "two thirds in", start: second.Add(670 * time.Millisecond), want: 666},
		{name: "on a boundary", start: second, want: 600},
	}
	for _, tt := range tests {
		got := fixedWindowSum(tt.start, 5*time.Millisecond, 1200, time.Second, 100)
		if got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestScheduled(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	every := 5 * time.Millisecond
	for _, tt := range []struct {
		last time.Duration
		want int64
	}{
		{0, 1},
		{5995 * time.Millisecond, 1200}, // 200/s for 6 s, on time
		{5995*time.Millisecond + 2400*time.Microsecond, 1200}, // the last one 2.4 ms late
		{6000 * time.Millisecond, 1201},                       // k6's extra arrival at t = 6 s
	} {
		if got := scheduled(arrivalSpan{First: t0, Last: t0.Add(tt.last)}, every); got != tt.want {
			t.Errorf("span %v: %d arrivals, want %d", tt.last, got, tt.want)
		}
	}
}

// The expected passes follow the generator that ran: the same YAML run
// begun at two different points of a second expects what each start gives.
func TestFixedWindowPassedFollowsTheRunsOwnArrivals(t *testing.T) {
	e, err := experiment.Parse([]byte(`title: limiter
path:
  boxes:
    - name: fw
      stages:
        - {kind: ratelimit, algorithm: fixed-window, rate: 100/s}
runs:
  - name: r
    load: {executor: constant-arrival-rate, rate: 200/s, duration: 6s, preAllocatedVUs: 5}
`), false)
	if err != nil {
		t.Fatal(err)
	}
	second := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		start time.Duration
		want  float64
	}{{670 * time.Millisecond, 666}, {0, 600}} {
		first := second.Add(tt.start)
		r := &RunResult{Spec: &e.Runs[0], PathCfg: e.PathFor(&e.Runs[0]), Arrivals: func() (arrivalSpan, error) {
			return arrivalSpan{First: first, Last: first.Add(5995 * time.Millisecond), Requests: 1200}, nil
		}}
		got, err := r.lookup("derived fixedWindowPassed")
		if err != nil || got != tt.want {
			t.Errorf("begun %v into a second: %v, %v; want %v", tt.start, got, err, tt.want)
		}
	}
	r := &RunResult{Spec: &e.Runs[0], PathCfg: e.PathFor(&e.Runs[0])}
	if _, err := r.lookup("derived fixedWindowPassed"); err == nil || !strings.Contains(err.Error(), "did not record") {
		t.Errorf("without arrivals: %v, want an error saying so", err)
	}
}

func TestSpanObserver(t *testing.T) {
	next := &countingObserver{}
	o := newSpanObserver(next)
	start := time.Unix(1_700_000_000, 0)
	// Requests that went out at 10 ms, 20 ms, …, 1000 ms, seen out of order from many VUs.
	var wg sync.WaitGroup
	for vu := range 10 {
		wg.Go(func() {
			for i := 10; i >= 1; i-- {
				sent := time.Duration(vu*10+i) * 10 * time.Millisecond
				o.Observe(vu, load.Observation{End: sent + 7*time.Millisecond, Duration: 7 * time.Millisecond})
			}
		})
	}
	wg.Wait()
	o.ObserveResult(&load.Result{Start: start})
	sp, err := o.span()
	if err != nil {
		t.Fatal(err)
	}
	if want := start.Add(10 * time.Millisecond); !sp.First.Equal(want) {
		t.Errorf("first %v, want %v", sp.First, want)
	}
	if want := start.Add(1000 * time.Millisecond); !sp.Last.Equal(want) {
		t.Errorf("last %v, want %v", sp.Last, want)
	}
	if sp.Requests != 100 || next.n != 100 || !next.result {
		t.Errorf("requests %d, handed on %d (result %v); want 100, 100, true", sp.Requests, next.n, next.result)
	}
	if _, err := newSpanObserver(nil).span(); err == nil {
		t.Error("an observer that saw nothing gave a span")
	}
}

type countingObserver struct {
	mu     sync.Mutex
	n      int
	result bool
}

func (c *countingObserver) Observe(int, load.Observation) { c.mu.Lock(); c.n++; c.mu.Unlock() }
func (c *countingObserver) ObserveResult(*load.Result)    { c.result = true }

func TestK6Span(t *testing.T) {
	path := filepath.Join(t.TempDir(), "points.json")
	lines := []string{
		`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time"},"metric":"http_req_duration"}`,
		// ended 12:00:00.050 after 50 ms: went out at 12:00:00.000
		`{"metric":"http_req_duration","type":"Point","data":{"time":"2026-12-01T12:00:00.05+00:00","value":50,"tags":{}}}`,
		`{"metric":"http_req_waiting","type":"Point","data":{"time":"2026-12-01T11:00:00+00:00","value":1,"tags":{}}}`,
		// ended 12:00:02.9952 after 0.2 ms: went out at 12:00:02.995
		`{"metric":"http_req_duration","type":"Point","data":{"time":"2026-12-01T12:00:02.9952+00:00","value":0.2,"tags":{}}}`,
		`{"metric":"http_req_duration","type":"Point","data":{"time":"2026-12-01T12:00:01.5+00:00","value":50,"tags":{}}}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := k6Span(path)
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	if !sp.First.Equal(day) || !sp.Last.Equal(day.Add(2995*time.Millisecond)) || sp.Requests != 3 {
		t.Errorf("span %v .. %v (%d requests), want %v .. %v (3)", sp.First, sp.Last, sp.Requests, day, day.Add(2995*time.Millisecond))
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(lines[0]+"\n"+`{"metric":"http_req_duration","type":"Point","data":{"time":"yesterday"}}`+"\n"), 0o644)
	if _, err := k6Span(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:2", bad)) {
		t.Errorf("a bad point: %v, want an error naming line 2", err)
	}
}
