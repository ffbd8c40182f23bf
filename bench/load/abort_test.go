package load

import (
	"net/http"
	"testing"
	"time"

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
