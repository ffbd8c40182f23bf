package load

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/units"
)

// TestAbortOnFailEndsTheRun: a threshold with abortOnFail that fails from
// the first request ends a 30 s run at k6's first evaluation, 2 s in.
// Records reach the collector in batches, at least once a second (the VU
// gauges' sampler); a VU with think time must not hold its records until
// its 64-record batch fills (a request and an iteration record every
// 300 ms: 10 s), nor may a VU the ramp has parked hold them to the end.
func TestAbortOnFailEndsTheRun(t *testing.T) {
	failing := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	slowFailing := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(100 * time.Millisecond)
		w.WriteHeader(http.StatusInternalServerError)
	})
	abortOnFailure := map[string][]ThresholdExpr{mHTTPFailed: {{Threshold: "rate<0.5", AbortOnFail: true}}}
	for _, c := range []struct {
		name      string
		handler   http.Handler
		vus       int
		stages    []Stage // instead of vus and duration
		think     time.Duration
		duration  time.Duration
		wantAbort bool
		// The run's length: from k6's 2 s cadence to one more gauge
		// batch (1 s) and a margin for a busy machine.
		lo, hi time.Duration
	}{
		{"busy VUs", failing, 2, nil, 0, 30 * time.Second, true, 2 * time.Second, 3500 * time.Millisecond},
		{"thinking VU", failing, 1, nil, 300 * time.Millisecond, 30 * time.Second, true, 2 * time.Second, 3500 * time.Millisecond},
		// One VU for half a second, then none for 29: it parks holding
		// the records of its five requests, none yet a second old.
		{"parked VU", slowFailing, 0, []Stage{stage(500*time.Millisecond, 1), stage(100*time.Millisecond, 0), stage(29*time.Second, 0)}, 0, 0, true, 2 * time.Second, 3500 * time.Millisecond},
		{"passing", sleepyHandler(0), 1, nil, 300 * time.Millisecond, 3 * time.Second, false, 3 * time.Second, 3500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, c.handler)
			cfg := &Config{URL: s.URL, VUs: c.vus, Duration: dur(c.duration), Stages: c.stages, Think: units.Fixed(c.think),
				Thresholds: abortOnFailure}
			if c.stages != nil {
				cfg.StartVUs = 1
			}
			res := runFor(t, cfg, time.Minute)
			t.Logf("%v in %v, aborted by threshold %v", res, res.Duration(), res.AbortedByThreshold)
			if res.AbortedByThreshold != c.wantAbort {
				t.Errorf("aborted by threshold: %v, want %v", res.AbortedByThreshold, c.wantAbort)
			}
			if d := res.Duration(); d < c.lo || d > c.hi {
				t.Errorf("run lasted %v, want %v..%v", d, c.lo, c.hi)
			}
			if res.Requests == 0 {
				t.Error("no request recorded")
			}
		})
	}
}

// TestFlushBy: a batch goes to the collector once its oldest record would
// be flushAfter old, not before, and an empty one never does.
func TestFlushBy(t *testing.T) {
	const second = int64(time.Second)
	for _, c := range []struct {
		name string
		ends []int64 // records emitted, ns since base
		at   int64
		sent bool
	}{
		{"nothing held", nil, 10 * second, false},
		{"younger than a second", []int64{5 * second, 5*second + 900}, 6*second - 1, false},
		{"exactly a second", []int64{5 * second, 5*second + 900}, 6 * second, true},
		{"the oldest counts", []int64{2 * second, 5 * second}, 3*second + 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := make(chan *batch, 1)
			e := &emitter{out: out, pool: newBatches()}
			for _, end := range c.ends {
				e.emit(&record{kind: kindRequest, end: end})
			}
			e.flushBy(c.at)
			select {
			case b := <-out:
				if !c.sent || len(b.recs) != len(c.ends) {
					t.Errorf("sent %d records, want sent=%v of %d", len(b.recs), c.sent, len(c.ends))
				}
			default:
				if c.sent {
					t.Error("nothing sent")
				}
			}
		})
	}
}

// TestAborterOnAGivenClock: the abort thresholds are evaluated 2 s after
// the start and then 2 s after each evaluation (k6's cadence), and a
// failing one ends the run only once its delayAbortEval has passed since
// the start; a passing one, or one without abortOnFail, never does. The
// times are given to the aborter: exact, and nothing waits.
func TestAborterOnAGivenClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	failedRate := func(rate float64) *metrics.Document {
		return &metrics.Document{Metrics: map[string]metrics.Metric{mHTTPFailed: {Type: "rate", Values: map[string]float64{"rate": rate}}}}
	}
	threshold := func(abort bool, delay time.Duration) []metrics.Threshold {
		th, err := metrics.ParseThreshold(mHTTPFailed, "rate<0.5")
		if err != nil {
			t.Fatal(err)
		}
		th.AbortOnFail, th.DelayAbortEval = abort, delay
		return []metrics.Threshold{th}
	}
	for _, c := range []struct {
		name  string
		ts    []metrics.Threshold
		rate  float64 // http_req_failed's, at every evaluation
		calls []int   // ms since the start at which the collector asks due
		due   []bool  // what due answers each time
		fired int     // the call (index) after whose evaluation the run ends; -1: never
	}{
		{"failing: ends at the first evaluation", threshold(true, 0), 1,
			[]int{0, 1999, 2000, 2001, 4000}, []bool{false, false, true, false, false}, 2},
		{"passing: evaluated every 2 s from the last evaluation", threshold(true, 0), 0,
			[]int{1999, 2300, 4299, 4300, 6299, 6300}, []bool{false, true, false, true, false, true}, -1},
		{"failing with delayAbortEval 5 s: not before 5 s", threshold(true, 5*time.Second), 1,
			[]int{2000, 4000, 5999, 6000}, []bool{true, true, false, true}, 3},
		{"failing, delay passed exactly at an evaluation", threshold(true, 4*time.Second), 1,
			[]int{2000, 4000}, []bool{true, true}, 1},
		{"without abortOnFail: never evaluated", threshold(false, 0), 1,
			[]int{2000, 4000, 6000}, []bool{false, false, false}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newAborter(context.Background(), c.ts, start)
			defer a.stop()
			fired := -1
			for i, at := range c.calls {
				due := a.due(ms(at))
				if due != c.due[i] {
					t.Errorf("at %d ms: due %v, want %v", at, due, c.due[i])
				}
				if due {
					a.check(failedRate(c.rate), ms(at))
				}
				if a.fired() && fired < 0 {
					fired = i
				}
			}
			if fired != c.fired {
				t.Errorf("the run ended after call %d, want %d (-1: never)", fired, c.fired)
			}
			if ended := a.ctx.Err() != nil; ended != (c.fired >= 0) {
				t.Errorf("run's context ended %v, want %v", ended, c.fired >= 0)
			}
		})
	}
}
