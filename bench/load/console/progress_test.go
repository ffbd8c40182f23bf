package console

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/units"
)

// The six executors of one k6 run (real k6 v1.8.1, no terminal, the same
// scenarios), and the lines k6 printed for them: each executor's columns,
// laid out together. The clock is injected: each block is printed for the
// Progress the test hands in, at the elapsed time it says.
func TestProgressLinesAreK6s(t *testing.T) {
	d := func(s string) units.Duration { v, _ := time.ParseDuration(s); return units.Duration(v) }
	cfg := &load.Config{Scenarios: map[string]*load.Scenario{
		"shared": {Config: load.Config{Executor: load.SharedIterations, VUs: 3, Iterations: 200, MaxDuration: d("8s")}},
		"pervu":  {Config: load.Config{Executor: load.PerVUIterations, VUs: 2, Iterations: 60, MaxDuration: d("8s")}},
		"cvus":   {Config: load.Config{Executor: load.ConstantVUs, VUs: 2, Duration: d("3s")}},
		"rvus":   {Config: load.Config{Executor: load.RampingVUs, Stages: []load.Stage{{Duration: d("2s"), Target: 4}, {Duration: d("1s"), Target: 4}}}},
		"car": {Config: load.Config{Executor: load.ConstantArrivalRate, Rate: units.Rate{N: 50, Per: time.Second}, Duration: d("3s"),
			PreAllocatedVUs: 5, MaxVUs: 10}},
		"rar": {Config: load.Config{Executor: load.RampingArrivalRate, StartRate: 10, PreAllocatedVUs: 5, MaxVUs: 10,
			Stages: []load.Stage{{Duration: d("2s"), Target: 60}, {Duration: d("1s"), Target: 60}}}},
	}}
	sc := func(name, executor string, planned string, vus, maxVUs int, iters int64) load.ScenarioProgress {
		return load.ScenarioProgress{Name: name, Executor: executor, Planned: d(planned).D(), VUs: vus, MaxVUs: maxVUs, Iterations: iters}
	}
	at := func(elapsed string, scs ...load.ScenarioProgress) load.Progress {
		return load.Progress{Elapsed: d(elapsed).D(), VUs: 10, MaxVUs: 21, Scenarios: scs}
	}
	var out bytes.Buffer
	p := newProgress(&out, false, 8*time.Second, cfg)
	block := func() []string {
		t.Helper()
		lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		out.Reset()
		return lines[2:] // the blank line and "running (…)"
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("lines:\n%s\nwant (k6's):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}

	p.update(at("970ms",
		sc("car", load.ConstantArrivalRate, "3s", 2, 10, 48),
		sc("cvus", load.ConstantVUs, "3s", 2, 2, 90),
		sc("pervu", load.PerVUIterations, "8s", 2, 2, 86),
		sc("rar", load.RampingArrivalRate, "3s", 0, 10, 20),
		sc("rvus", load.RampingVUs, "3s", 1, 4, 20),
		sc("shared", load.SharedIterations, "8s", 3, 3, 129)))
	want(block(),
		"car      [  32% ] 02/05 VUs  1.0s/3s  50.00 iters/s",
		"cvus     [  32% ] 2 VUs      1.0s/3s ",
		"pervu    [  72% ] 2 VUs      1.0s/8s  086/120 iters, 60 per VU",
		// The ramp's target 0.97 s in: 10 + (60 − 10) × 0.97 / 2. (k6 printed
		// 33.54: the reciprocal of its last gap between arrivals.)
		"rar      [  32% ] 00/05 VUs  1.0s/3s  34.25 iters/s",
		"rvus     [  32% ] 1/4 VUs    1.0s/3.0s",
		"shared   [  64% ] 3 VUs      1.0s/8s  129/200 shared iters")

	// pervu ends at 1.3 s, shared at 1.5 s: their lines freeze then (✓).
	p.update(at("1300ms",
		sc("car", load.ConstantArrivalRate, "3s", 1, 10, 63),
		sc("cvus", load.ConstantVUs, "3s", 2, 2, 120),
		sc("pervu", load.PerVUIterations, "8s", 0, 2, 120),
		sc("rar", load.RampingArrivalRate, "3s", 1, 10, 30),
		sc("rvus", load.RampingVUs, "3s", 2, 4, 30),
		sc("shared", load.SharedIterations, "8s", 3, 3, 170)))
	block()
	p.update(at("1500ms",
		sc("car", load.ConstantArrivalRate, "3s", 1, 10, 73),
		sc("cvus", load.ConstantVUs, "3s", 2, 2, 130),
		sc("pervu", load.PerVUIterations, "8s", 0, 2, 120),
		sc("rar", load.RampingArrivalRate, "3s", 1, 10, 38),
		sc("rvus", load.RampingVUs, "3s", 2, 4, 35),
		sc("shared", load.SharedIterations, "8s", 0, 3, 200)))
	block()
	p.update(at("1970ms",
		sc("car", load.ConstantArrivalRate, "3s", 1, 10, 98),
		sc("cvus", load.ConstantVUs, "3s", 2, 2, 180),
		sc("pervu", load.PerVUIterations, "8s", 0, 2, 120),
		sc("rar", load.RampingArrivalRate, "3s", 2, 10, 60),
		sc("rvus", load.RampingVUs, "3s", 3, 4, 60),
		sc("shared", load.SharedIterations, "8s", 0, 3, 200)))
	want(block(),
		"car      [  66% ] 01/05 VUs  2.0s/3s  50.00 iters/s",
		"cvus     [  66% ] 2 VUs      2.0s/3s ",
		"pervu  ✓ [ 100% ] 2 VUs      1.3s/8s  120/120 iters, 60 per VU",
		"rar      [  66% ] 02/05 VUs  2.0s/3s  59.25 iters/s",
		"rvus     [  66% ] 3/4 VUs    2.0s/3.0s",
		"shared ✓ [ 100% ] 3 VUs      1.5s/8s  200/200 shared iters")

	// In the graceful stop, then the final block.
	p.update(at("3100ms",
		sc("car", load.ConstantArrivalRate, "3s", 1, 10, 150),
		sc("cvus", load.ConstantVUs, "3s", 2, 2, 270),
		sc("pervu", load.PerVUIterations, "8s", 0, 2, 120),
		sc("rar", load.RampingArrivalRate, "3s", 1, 10, 120),
		sc("rvus", load.RampingVUs, "3s", 1, 4, 90),
		sc("shared", load.SharedIterations, "8s", 0, 3, 200)))
	want(block(),
		"car    ↓ [ 100% ] 01/05 VUs  3s       50.00 iters/s",
		"cvus   ↓ [ 100% ] 2 VUs      3s      ",
		"pervu  ✓ [ 100% ] 2 VUs      1.3s/8s  120/120 iters, 60 per VU",
		"rar    ↓ [ 100% ] 01/05 VUs  3s       60.00 iters/s",
		"rvus   ↓ [ 100% ] 1/4 VUs    3s      ",
		"shared ✓ [ 100% ] 3 VUs      1.5s/8s  200/200 shared iters")
	p.done(&load.Result{Start: time.Unix(0, 0), End: time.Unix(3, 20e6), Iterations: 1217})
	want(block()[:6],
		"car    ✓ [ 100% ] 00/05 VUs  3s       50.00 iters/s",
		"cvus   ✓ [ 100% ] 2 VUs      3s      ", // constant-vus shows the VUs configured
		"pervu  ✓ [ 100% ] 2 VUs      1.3s/8s  120/120 iters, 60 per VU",
		"rar    ✓ [ 100% ] 00/05 VUs  3s       60.00 iters/s",
		"rvus   ✓ [ 100% ] 0/4 VUs    3s      ",
		"shared ✓ [ 100% ] 3 VUs      1.5s/8s  200/200 shared iters")
}

func TestFixedDuration(t *testing.T) {
	for _, tt := range []struct {
		d, top time.Duration
		want   string
	}{
		{970 * time.Millisecond, 3 * time.Second, "1.0s"},
		{1300 * time.Millisecond, 8 * time.Second, "1.3s"},
		{3 * time.Second, 30 * time.Second, "03.0s"},
		{65 * time.Second, 5 * time.Minute, "1m05.0s"},
		{65 * time.Second, 30 * time.Minute, "01m05.0s"},
		{3725 * time.Second, 2 * time.Hour, "1h02m05.0s"},
		{25 * time.Hour, 48 * time.Hour, "1d01h00m00.0s"},
		{12 * time.Second, 5 * time.Second, "12.0s"}, // past the top: as wide as it needs
	} {
		if got := fixedDuration(tt.d, tt.top); got != tt.want {
			t.Errorf("fixedDuration(%v, %v) = %s, want %s", tt.d, tt.top, got, tt.want)
		}
	}
}
