package bench

import (
	"io"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/units"
)

// The harness's line carries the executor's columns k6 prints, for the
// Progress handed in (the injected clock is its Elapsed).
func TestProgressLineCarriesK6sColumns(t *testing.T) {
	for _, tt := range []struct {
		cfg  load.Config
		sc   load.ScenarioProgress
		want string
	}{
		{load.Config{Executor: load.PerVUIterations, VUs: 2, Iterations: 60},
			load.ScenarioProgress{Name: "default", Executor: load.PerVUIterations, Planned: 10 * time.Minute, VUs: 2, MaxVUs: 2, Iterations: 86},
			// maxDuration 10m: not under 10 minutes, so the minutes take two digits
			"  e9 › r  2 VUs  00m01.0s/10m0s  086/120 iters, 60 per VU  40 req/s  86 reqs  0 failed"},
		{load.Config{Executor: load.ConstantArrivalRate, Rate: units.Rate{N: 200, Per: time.Second}, Duration: units.Duration(6 * time.Second), PreAllocatedVUs: 30, MaxVUs: 100},
			load.ScenarioProgress{Name: "default", Executor: load.ConstantArrivalRate, Planned: 6 * time.Second, VUs: 9, MaxVUs: 100, Iterations: 195},
			"  e9 › r  009/030 VUs  1.0s/6s  200.00 iters/s  40 req/s  86 reqs  0 failed"},
		{load.Config{Executor: load.RampingVUs, Stages: []load.Stage{{Duration: units.Duration(5 * time.Second), Target: 4}}},
			load.ScenarioProgress{Name: "default", Executor: load.RampingVUs, Planned: 5 * time.Second, VUs: 1, MaxVUs: 4, Iterations: 9},
			"  e9 › r  1/4 VUs  1.0s/5.0s  40 req/s  86 reqs  0 failed"},
	} {
		p := newProgressLine(io.Discard, false, "e9", "r", &tt.cfg)
		g := load.Progress{Elapsed: 1000 * time.Millisecond, VUs: tt.sc.VUs, MaxVUs: 30, ReqRate: 40, Requests: 86, Scenarios: []load.ScenarioProgress{tt.sc}}
		if got := p.text(g); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.sc.Executor, got, tt.want)
		}
	}
}
