package diagnose

import (
	"math"
	"testing"
)

// Where the requests recorded the server's time (Server-Timing), waiting
// is split with it, not with the server's own view, which also counts
// requests k6 never recorded. k6check's seed 003 closed run, cut at
// gracefulStop 0s: k6 recorded 5540 requests, the server counted 5940
// (the 400 cut ones answered 499 after a short wait), so its view's
// averages (46.97 ms, queue 736.33 ms) were not those of k6's requests
// (50.28 ms, queue 776.68 ms): outside the server read 44.35 ms, not 0.70.
func TestFactsSplitWaitingWithTheRequestsServerTime(t *testing.T) {
	perRequest := func(o *Observation) *Observation {
		o.Phases.Server, o.Phases.ServerQueue = st(50.28, 50.64), st(776.68, 1964.5)
		return o
	}
	view := func(o *Observation) *Observation {
		o.Server = &ServerSide{Source: "server.json", Requests: 5940, Time: st(46.97, 50.6), Queue: st(736.33, 1964.5)}
		return o
	}
	base := func() *Observation {
		return &Observation{Run: closedRun(400), Window: Window{Seconds: 28, Requests: 5540, Iterations: 5540, Phases: quick(827.66, 2015.5)}}
	}
	tests := []struct {
		name                string
		obs                 *Observation
		srv, queue, outside float64
		requests            int64
	}{
		{"per request and the server's view", view(perRequest(base())), 50.28, 776.68, 0.70, 5940},
		{"per request only", perRequest(base()), 50.28, 776.68, 0.70, -1},
		{"the server's view only", view(base()), 46.97, 736.33, 44.36, 5940},
		{"per request without its queue: the view's", func() *Observation {
			o := view(perRequest(base()))
			o.Phases.ServerQueue = Stat{}
			return o
		}(), 50.28, 736.33, 41.05, 5940},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFacts(&Config{}, tt.obs, &tt.obs.Window, "")
			got := []float64{f.srv.Avg, f.queue.Avg, f.outside}
			want := []float64{tt.srv, tt.queue, tt.outside}
			for i, name := range []string{"server time", "queue", "outside"} {
				if math.Abs(got[i]-want[i]) > 0.01 {
					t.Errorf("%s %.2f, want %.2f", name, got[i], want[i])
				}
			}
			if f.srvRequests != tt.requests {
				t.Errorf("server requests %d, want %d (the server's count)", f.srvRequests, tt.requests)
			}
		})
	}
}
