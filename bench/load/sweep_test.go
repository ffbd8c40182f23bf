package load

import (
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func TestPlanSweep(t *testing.T) {
	st := func(d time.Duration, target float64) Stage { return Stage{Duration: units.Duration(d), Target: target} }
	for _, tc := range []struct {
		name  string
		cfg   Config
		first time.Duration
		steps []PlannedStep
	}{
		{"ramping-vus jumps at 0", Config{Executor: RampingVUs, Stages: []Stage{st(0, 2), st(2*time.Second, 2), st(0, 4), st(time.Second, 4)}}, 0,
			[]PlannedStep{{Start: 0, End: 2 * time.Second, VUs: 2}, {Start: 2 * time.Second, End: 3 * time.Second, VUs: 4}}},
		// VU 1 of a ramp from 0 to 4 over 1 s starts at 1 s · 1/4.
		{"ramping-vus ramps from 0", Config{Executor: RampingVUs, Stages: []Stage{st(time.Second, 4)}}, 250 * time.Millisecond,
			[]PlannedStep{{Start: 0, End: time.Second, VUs: 4}}},
		// k6's first arrival at 100/s is at 1/100 s.
		{"ramping-arrival-rate", Config{Executor: RampingArrivalRate, StartRate: 100, PreAllocatedVUs: 2, Stages: []Stage{st(time.Second, 100), st(0, 200), st(time.Second, 200)}},
			10 * time.Millisecond, []PlannedStep{{Start: 0, End: time.Second, Rate: 100}, {Start: time.Second, End: 2 * time.Second, Rate: 200}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.URL = "http://127.0.0.1:1/"
			sw, err := PlanSweep(&tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if sw == nil {
				t.Fatal("no sweep")
			}
			if sw.FirstStart != tc.first {
				t.Errorf("first start %v, want %v", sw.FirstStart, tc.first)
			}
			if len(sw.Steps) != len(tc.steps) {
				t.Fatalf("steps %+v, want %+v", sw.Steps, tc.steps)
			}
			for i, s := range sw.Steps {
				w := tc.steps[i]
				if s.Start != w.Start || s.End != w.End || s.VUs != w.VUs || s.Rate != w.Rate {
					t.Errorf("step %d: %+v, want %+v", i, s, w)
				}
			}
		})
	}
	one := Config{URL: "http://127.0.0.1:1/", VUs: 2, Duration: units.Duration(time.Second)}
	if sw, err := PlanSweep(&one); err != nil || sw != nil {
		t.Errorf("a run of one step: %+v, %v; want nil, nil", sw, err)
	}
}
