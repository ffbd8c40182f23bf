package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// closedSweep writes a two-step closed sweep like k6check's E4 (a download
// cap): 4 VUs for 5 s receiving in 20 ms, then 16 VUs for 5 s receiving in
// 200–800 ms while waiting stays at 100 ms. Iterations still running at
// 10 s are cut (gracefulStop: 0s). It returns the second step's receiving
// times.
func closedSweep(k *k6Points) []float64 {
	var recv []float64
	for s := range 10 {
		vus := 4
		if s >= 5 {
			vus = 16
		}
		k.vus(time.Duration(s)*time.Second, vus)
		for i := range 40 {
			start := time.Duration(s)*time.Second + time.Duration(i)*25*time.Millisecond
			r := k6Req{sending: 0.05, waiting: 100, receiving: 20, blocked: 0.002, server: 99.5}
			if i == 0 {
				r.blocked = 1.5 // a new connection now and then: max ≠ 0, p95 ≈ 0
			}
			if vus == 16 {
				r.receiving = 200 + 600*float64((s-5)*40+i)/199
				if start+time.Duration((r.sending+r.waiting+r.receiving)*1e6) >= 10*time.Second {
					continue
				}
				recv = append(recv, r.receiving)
			}
			k.iteration(start, r)
		}
	}
	return recv
}

// k6p95 is k6's p95 of values (sorted ascending): linear interpolation
// between the two nearest ranks.
func k6p95(v []float64) float64 {
	i := 0.95 * float64(len(v)-1)
	lo, hi := v[int(math.Floor(i))], v[int(math.Ceil(i))]
	return lo + (hi-lo)*(i-math.Floor(i))
}

// A step of a stream knows the p95 of sending and receiving (E4 read from
// k6's NDJSON said receiving_p95_ms=0s where k6 printed 753.9 ms), and a
// phase kept without a histogram reads as no distribution, not a p95 of 0.
func TestStreamStepPercentiles(t *testing.T) {
	k := newK6Points()
	recv := closedSweep(k)
	o := k.read(t, Reader{})
	if len(o.Steps) != 2 {
		t.Fatalf("%d steps, want 2 (4 and 16 VUs)", len(o.Steps))
	}
	last := o.Steps[1].Phases
	want := k6p95(recv)
	tests := []struct {
		name      string
		got, want float64
		tol       float64 // relative; time buckets keep 2 significant digits
	}{
		{"receiving p95", last.Receiving.P95, want, 0.01},
		{"receiving tail", last.Receiving.Tail(), want, 0.01},
		{"sending p95", last.Sending.P95, 0.05, 0.01},
		{"blocked tail (no histogram: the average)", last.Blocked.Tail(), last.Blocked.Avg, 0},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want) > tt.tol*tt.want {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	o.Run.Executor, o.Run.Model = "ramping-vus", ModelClosed
	f, ok := Analyze(o, DefaultConfig()).Finding(CodeDownloadLimited)
	if !ok {
		t.Fatal("no download-limited finding")
	}
	if p95, _ := f.Evidence.Get("receiving_p95_ms"); math.Abs(p95-want) > 0.01*want {
		t.Errorf("evidence receiving_p95_ms %v, want %v", p95, want)
	}
}

func TestStatTail(t *testing.T) {
	tests := []struct {
		name string
		s    Stat
		want float64
	}{
		{"p95", Stat{Avg: 5, P90: 8, P95: 9, Max: 12}, 9},
		{"p90 only", Stat{Avg: 5, P90: 8}, 8},
		{"APM figure: avg only", Stat{Avg: 5}, 5},
		{"a distribution whose p95 is 0", Stat{Avg: 0.5, Max: 100}, 0},
		{"no distribution kept", sums{n: 4, sum: 4e6, min: 0, max: 4e6}.stat(), 1},
	}
	for _, tt := range tests {
		if got := tt.s.Tail(); got != tt.want {
			t.Errorf("%s: Tail %v, want %v", tt.name, got, tt.want)
		}
	}
}

// openSweep writes an arrival-rate sweep that drops nothing, like k6check's
// seed 003 open run: 60/s for 5 s, then 120/s for 5 s while latency grows
// from 50 ms to 950 ms (a queue building up), so that fewer iterations end
// in a second than start in it. The vus gauge climbs with the requests in
// flight, as an arrival-rate executor's does.
func openSweep(k *k6Points) {
	for s := range 10 {
		rate := 60
		if s >= 5 {
			rate = 120
		}
		k.vus(time.Duration(s)*time.Second+time.Millisecond, rate/20*(1+max(s-4, 0)))
		for i := range rate {
			at := time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(rate)
			wait := 50.0
			if s >= 5 {
				wait += 900 * (at - 5*time.Second).Seconds() / 5
			}
			k.iteration(at, k6Req{sending: 0.05, waiting: wait, receiving: 0.1, server: 49.5})
		}
	}
}

// An arrival-rate run that dropped no iterations is cut into steps by
// arrivals per second once the executor is given; k6's stream cannot say
// it. Arrivals are counted when iterations start (time − duration), not
// when they end.
func TestOpenStreamStepsByArrivals(t *testing.T) {
	k := newK6Points()
	openSweep(k)
	p := filepath.Join(t.TempDir(), "points.json")
	if err := os.WriteFile(p, k.buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Run(context.Background(), Options{Files: []string{p}, ServerCount: -1, Executor: "ramping-arrival-rate", JSON: true, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) < 2 {
		t.Fatalf("steps %+v, want 60/s and 120/s", r.Steps)
	}
	for i, want := range []float64{60, 120} {
		s := r.Steps[i]
		t.Logf("%s: %d requests, rate %.1f, %.1f VUs", s.Name, s.Requests, s.Rate, s.VUs)
		if math.Abs(s.Rate-want) > 0.03*want || !strings.Contains(s.Name, "/s") {
			t.Errorf("step %d %q: rate %.1f, want %.0f/s", i, s.Name, s.Rate, want)
		}
	}
	if slices.Contains(r.Codes(), CodeClosedModelBacklog) {
		t.Errorf("codes %v: an open model has no closed-model backlog", r.Codes())
	}
}

// A generator short of CPU starts iterations late and in bursts: each
// second's arrivals stray from the target (k6check's E7 at 1,000/s and
// 1,200/s, counted by start: 947, 991, 1055, 945, then 1226, 1107, 1240,
// 1103). Each target is still one step.
func TestOpenStreamStepsDespiteBurstyStarts(t *testing.T) {
	k := newK6Points()
	perSecond := []int{500, 500, 500, 500, 947, 991, 1055, 945, 1226, 1107, 1240, 1103}
	for s, n := range perSecond {
		for i := range n {
			at := time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(n)
			k.iteration(at, k6Req{sending: 0.01, waiting: 20, receiving: 0.01, server: 19.5})
		}
	}
	o := k.read(t, Reader{Open: true})
	for _, s := range o.Steps {
		t.Logf("%s: %d requests", s.Name, s.Requests)
	}
	if len(o.Steps) != 3 {
		t.Fatalf("%d steps, want 3 (500/s, 1,000/s, 1,200/s)", len(o.Steps))
	}
}

// closedDrain writes a closed sweep of 10 VUs for 5 s then 40 VUs for 5 s
// whose requests take 1.5 s (a backlog), like k6check's seed 003 closed
// run. With cut (gracefulStop: 0s) iterations still running at 10 s are
// lost; without, they finish over the next 1.5 s, two time buckets.
func closedDrain(k *k6Points, cut bool) {
	for s := range 12 {
		vus := 10
		switch {
		case s >= 11:
			vus = 8 // VUs finishing their last iteration
		case s >= 10:
			vus = 25
		case s >= 5:
			vus = 40
		}
		if s < 10 || !cut {
			k.vus(time.Duration(s)*time.Second, vus)
		}
	}
	for v := range 40 {
		from, lat := 5*time.Second+time.Duration(v)*1500*time.Millisecond/40, 1500.0
		if v < 10 {
			for at := time.Duration(v) * 5 * time.Millisecond; at < 5*time.Second; at += 50 * time.Millisecond {
				k.iteration(at, k6Req{sending: 0.05, waiting: 49.9, receiving: 0.05, server: 49.5})
			}
		}
		for at := from; at < 10*time.Second; at += time.Duration(lat * 1e6) {
			if cut && at+time.Duration(lat*1e6) >= 10*time.Second {
				break
			}
			k.iteration(at, k6Req{sending: 0.05, waiting: lat - 0.1, receiving: 0.05, server: 49.5, queue: lat - 51})
		}
	}
}

// The iterations that finish after the last stage (k6's gracefulStop) are
// no step of their own: in k6check's E7 a lone 0.1 s bucket of 84 such
// requests raised path-latency. They still count in the totals and the
// series, and a note says so.
func TestStreamDrainIsNoStep(t *testing.T) {
	tests := []struct {
		name      string
		write     func(*k6Points)
		steps     int
		lastEndMs float64 // where the last step ends
		note      bool
	}{
		{"E7: a lone partial bucket of iterations finishing after the last stage", func(k *k6Points) {
			k.vus(0, 2)
			for s := range 8 {
				rate, lat := 100, 20.0
				if s >= 4 {
					rate, lat = 200, 150.0
				}
				for i := range rate {
					at := time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(rate)
					k.iteration(at, k6Req{sending: 0.05, waiting: lat, receiving: 0.05, server: 19.5})
				}
			}
			// An arrival scheduled before the end, started late by a busy generator.
			k.iteration(8*time.Second+20*time.Millisecond, k6Req{sending: 0.05, waiting: 150, receiving: 0.05, server: 19.5})
		}, 2, 8000, true},
		{"E7 with gracefulStop 0s: the last step runs to the end at its rate", func(k *k6Points) {
			k.vus(0, 2)
			for s := range 8 {
				rate, lat := 100, 20.0
				if s >= 4 {
					rate, lat = 1000, 170.0
				}
				for i := range rate {
					at := time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(rate)
					if at+time.Duration(lat*1e6) < 8*time.Second { // the rest is cut, never recorded
						k.iteration(at, k6Req{sending: 0.05, waiting: lat, receiving: 0.05, server: 19.5})
					}
				}
			}
		}, 2, 8000, false},
		{"seed 003 closed: 1.5 s of backlog draining over two buckets", func(k *k6Points) { closedDrain(k, false) }, 2, 10000, true},
		{"gracefulStop 0s: nothing drains, the last step runs to the end", func(k *k6Points) { closedDrain(k, true) }, 2, 10000, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newK6Points()
			tt.write(k)
			o := k.read(t, Reader{Open: strings.HasPrefix(tt.name, "E7")})
			var inSteps, inSeries int64
			for _, s := range o.Steps {
				t.Logf("%s: %d requests", s.Name, s.Requests)
				inSteps += s.Requests
			}
			for _, s := range o.Series {
				inSeries += s.Requests
			}
			if len(o.Steps) != tt.steps {
				t.Fatalf("%d steps, want %d", len(o.Steps), tt.steps)
			}
			if end := o.Steps[len(o.Steps)-1].EndMs; math.Abs(end-tt.lastEndMs) > 100 {
				t.Errorf("last step ends at %.0f ms, want %.0f", end, tt.lastEndMs)
			}
			if inSeries != o.Requests || (inSteps < o.Requests) != tt.note {
				t.Errorf("requests: %d in all, %d in the series, %d in the steps", o.Requests, inSeries, inSteps)
			}
			noted := strings.Contains(strings.Join(o.Notes, "\n"), "come after its last step")
			if noted != tt.note {
				t.Errorf("notes %q: want a note of the drain %v", o.Notes, tt.note)
			}
		})
	}
}
