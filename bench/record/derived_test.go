package record

import (
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
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
		if got := scheduled(ArrivalSpan{First: t0, Last: t0.Add(tt.last)}, every); got != tt.want {
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
		r := &RunResult{Spec: &e.Runs[0], PathCfg: e.PathFor(&e.Runs[0]), Arrivals: func() (ArrivalSpan, error) {
			return ArrivalSpan{First: first, Last: first.Add(5995 * time.Millisecond), Requests: 1200}, nil
		}}
		got, err := r.Lookup("derived fixedWindowPassed")
		if err != nil || got != tt.want {
			t.Errorf("begun %v into a second: %v, %v; want %v", tt.start, got, err, tt.want)
		}
	}
	r := &RunResult{Spec: &e.Runs[0], PathCfg: e.PathFor(&e.Runs[0])}
	if _, err := r.Lookup("derived fixedWindowPassed"); err == nil || !strings.Contains(err.Error(), "did not record") {
		t.Errorf("without arrivals: %v, want an error saying so", err)
	}
}
