package load

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func TestConstantArrivalRateStartsExactly(t *testing.T) {
	s := newServer(t, sleepyHandler(0))
	rate, _ := units.ParseRate("200/s")
	var announced time.Time
	res, err := Run(t.Context(), &Config{URL: s.URL, Rate: rate, Duration: dur(6 * time.Second), PreAllocatedVUs: 20, MaxVUs: 50},
		Options{OnStart: func(at time.Time) { announced = at }})
	if err != nil {
		t.Fatal(err)
	}
	if !announced.Equal(res.Start) {
		t.Errorf("OnStart said %v, Result.Start is %v", announced, res.Start)
	}
	started := res.Iterations + res.Dropped + res.Interrupted
	t.Logf("%d iterations, %d dropped, %d interrupted in %v", res.Iterations, res.Dropped, res.Interrupted, res.Duration())
	if started < 1199 || started > 1201 {
		t.Errorf("%d iterations started, want 1,200 ± 1", started)
	}
	if res.Requests != res.Iterations {
		t.Errorf("%d requests for %d iterations", res.Requests, res.Iterations)
	}
	if d := res.Document(); d.Metrics[mDropped].Type != "counter" {
		t.Errorf("no dropped_iterations counter in %v", d.Metrics[mDropped])
	}
}

// TestDroppedNotQueued: a server slower than maxVUs can serve; the
// arrivals that find no VU are dropped, and no request waits in a queue.
func TestDroppedNotQueued(t *testing.T) {
	var inFlight, peak atomic.Int64
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(200 * time.Millisecond)
		inFlight.Add(-1)
		w.Write([]byte("slow\n"))
	}))
	rate, _ := units.ParseRate("50/s")
	res := runFor(t, &Config{URL: s.URL, Rate: rate, Duration: dur(2 * time.Second), PreAllocatedVUs: 2, MaxVUs: 2}, 60*time.Second)
	t.Logf("%d iterations, %d dropped, server peak concurrency %d", res.Iterations, res.Dropped, peak.Load())
	if total := res.Iterations + res.Dropped + res.Interrupted; total < 99 || total > 101 {
		t.Errorf("%d arrivals, want 100 ± 1", total)
	}
	// 2 VUs × 2 s / 200 ms ≈ 20 served (+1 or 2 at the edges), the rest dropped.
	if res.Iterations > 24 || res.Dropped < 76 {
		t.Errorf("%d served and %d dropped; want ≤ 24 served", res.Iterations, res.Dropped)
	}
	if peak.Load() > 2 {
		t.Errorf("server saw %d requests at once with maxVUs 2", peak.Load())
	}
	if w := res.Document().Metrics[mWaiting].Values["max"]; w > 400 {
		t.Errorf("waiting max %.1f ms: requests queued", w)
	}
}

func TestIterationExecutors(t *testing.T) {
	s := newServer(t, sleepyHandler(0))
	tests := []struct {
		name string
		cfg  Config
		want int64
	}{
		{"per-vu-iterations", Config{Executor: PerVUIterations, VUs: 3, Iterations: 5}, 15},
		{"shared-iterations", Config{VUs: 4, Iterations: 17}, 17},
		{"one iteration by default", Config{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.URL = s.URL
			res := runFor(t, &cfg, 30*time.Second)
			if res.Iterations != tt.want || res.Requests != tt.want {
				t.Errorf("%d iterations, %d requests, want %d", res.Iterations, res.Requests, tt.want)
			}
		})
	}
}

func TestRampingVUsSteps(t *testing.T) {
	s := newServer(t, sleepyHandler(10*time.Millisecond))
	res := runFor(t, &Config{URL: s.URL, Stages: []Stage{stage(time.Second, 4), stage(time.Second, 4), stage(500*time.Millisecond, 0)},
		GracefulRampDown: durp(time.Second)}, 30*time.Second)
	d := res.Document()
	if len(d.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(d.Steps))
	}
	var sum float64
	for _, st := range d.Steps {
		n := st.Metrics[mHTTPReqs].Values["count"]
		sum += n
		t.Logf("%s: %v requests, %v VUs target, cpu %+v", st.Name, n, st.VUs, st.GeneratorCPU)
		if st.Metrics[mDuration].Values["p(95)"] == 0 || st.GeneratorCPU == nil {
			t.Errorf("step %q lacks a duration trend or generator CPU", st.Name)
		}
	}
	// What ends after the last step (the ramp-down) is in the run, not in a
	// step: at most one request per VU.
	if tail := res.Requests - int64(sum); tail < 0 || tail > 4 {
		t.Errorf("steps hold %v requests, the run %d: want the run's at most 4 (one per VU) more", sum, res.Requests)
	}
	// Full speed on step 2 (4 VUs, ~10 ms each): far more than step 1's ramp.
	if d.Steps[1].Metrics[mHTTPReqs].Values["count"] < d.Steps[0].Metrics[mHTTPReqs].Values["count"] {
		t.Errorf("4 steady VUs did fewer requests than the ramp to 4")
	}
	if got := d.Metrics[mVUsMax].Values["max"]; got != 4 {
		t.Errorf("vus_max %v, want 4", got)
	}
}

// TestGracefulStop: an iteration in flight at the end gets gracefulStop to
// finish; past it, it is interrupted and its request not recorded.
func TestGracefulStop(t *testing.T) {
	s := newServer(t, sleepyHandler(400*time.Millisecond))
	cut := runFor(t, &Config{URL: s.URL, VUs: 1, Duration: dur(100 * time.Millisecond), GracefulStop: durp(50 * time.Millisecond)}, 30*time.Second)
	if cut.Iterations != 0 || cut.Interrupted != 1 || cut.Requests != 0 {
		t.Errorf("cut: %v", cut)
	}
	if cut.Duration() > 300*time.Millisecond {
		t.Errorf("cut run lasted %v, want about 150ms", cut.Duration())
	}
	kept := runFor(t, &Config{URL: s.URL, VUs: 1, Duration: dur(100 * time.Millisecond), GracefulStop: durp(2 * time.Second)}, 30*time.Second)
	if kept.Iterations != 1 || kept.Interrupted != 0 || kept.Requests != 1 {
		t.Errorf("kept: %v", kept)
	}
}

func TestThinkTimeAndClientCPU(t *testing.T) {
	s := newServer(t, sleepyHandler(0))
	res := runFor(t, &Config{URL: s.URL, VUs: 1, Iterations: 5, Think: units.Fixed(40 * time.Millisecond), ClientCPU: dur(5 * time.Millisecond)}, 30*time.Second)
	it := res.Document().Metrics[mIterDuration].Values
	// 40 ms of sleep + a spin until the ms clock moved on by 5 (more than 4 ms).
	if it["min"] < 44 {
		t.Errorf("iteration_duration min %.2f ms, want ≥ 44 (think 40 ms + a 5-tick spin of the ms clock)", it["min"])
	}
	t.Logf("iteration_duration %v", it)
}
