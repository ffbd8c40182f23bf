package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

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
