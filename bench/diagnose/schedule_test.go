package diagnose

import (
	"testing"
	"time"
)

// With a Schedule, a stream's steps are the stages as the engine cuts its
// own: the requests that end within each, from Origin, whatever the time
// of the first point; what ends after the last stage (the graceful stop's
// drain) is in no step, though k6 wrote no vus point there.
func TestStreamScheduleCutsAtStages(t *testing.T) {
	k := newK6Points()
	const cycle = 300 * time.Millisecond // one request of 300 ms, then the next
	// 1 VU from 0 to 2 s, 2 VUs from 2 s to 4 s; an iteration started before
	// 4 s finishes after it.
	for _, vu := range []struct{ from time.Duration }{{0}, {2 * time.Second}} {
		for start := vu.from; start < 4*time.Second; start += cycle {
			k.iteration(start, k6Req{waiting: 300})
		}
	}
	for s := range 4 {
		k.vus(time.Duration(s)*time.Second+900*time.Millisecond, 1+s/2)
	}
	o := k.read(t, Reader{Origin: k.t0, Schedule: []ScheduledStep{
		{Name: "one", Start: 0, End: 2 * time.Second, VUs: 1},
		{Name: "two", Start: 2 * time.Second, End: 4 * time.Second, VUs: 2},
	}})
	// Ends at 0.3 … 1.8 s: 6. Then VU 1's from 2.1 to 3.9 s (7) and VU 2's
	// from 2.3 to 3.8 s (6); each VU's last, started at 3.9 and 3.8 s, ends
	// after 4 s.
	want := []struct {
		name     string
		requests int64
		vus      float64
	}{{"one", 6, 1}, {"two", 13, 2}}
	if len(o.Steps) != len(want) {
		t.Fatalf("%d steps, want %d: %+v", len(o.Steps), len(want), o.Steps)
	}
	for i, w := range want {
		s := o.Steps[i]
		if s.Name != w.name || s.Requests != w.requests || s.VUs != w.vus || s.Seconds != 2 {
			t.Errorf("step %d: %s, %d requests, %g VUs over %g s; want %s, %d, %g over 2 s", i, s.Name, s.Requests, s.VUs, s.Seconds, w.name, w.requests, w.vus)
		}
	}
	if o.Requests != 21 {
		t.Errorf("the run has %d requests, want 21 (the 2 of the drain included)", o.Requests)
	}
	if p := o.Steps[1].Phases.Waiting.P95; p != 300 {
		t.Errorf("step two's waiting p95 = %g, want 300 (each step keeps every phase's distribution)", p)
	}
}
