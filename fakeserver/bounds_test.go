package fakeserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestParamBoundsAre400: a parameter out of its bound (work ≤ 60 s, its
// distribution's mean included; cpu ≤ 10 s; size ≤ 1 GiB; none negative;
// status 200–599) is answered 400 at once, naming the parameter. ?cpu=1h
// burnt a core for an hour.
func TestParamBoundsAre400(t *testing.T) {
	srv := start(t, Config{})
	client := &http.Client{Timeout: 2 * time.Second}
	for _, tt := range []struct{ q, param string }{
		{"cpu=1h", "cpu"},
		{"cpu=10001ms", "cpu"},
		{"cpu=-1ms", "cpu"},
		{"work=2m", "work"},
		{"work=60001ms", "work"},
		{"work=exponential:2m", "work"},
		{"work=uniform:1ms..3m", "work"},
		{"work=lognormal:p50=1s,p99=1h", "work"},
		{"size=2GiB", "size"},
		{"size=-1", "size"},
		{"status=99", "status"},
	} {
		t.Run(tt.q, func(t *testing.T) {
			resp, err := client.Get(srv.URL() + "/?" + tt.q)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "query parameter "+tt.param) {
				t.Errorf("got %d %q, want 400 naming %s", resp.StatusCode, body, tt.param)
			}
		})
	}
}

// waitIdle waits (up to limit) until the server has no request in flight
// and returns how long that took.
func waitIdle(t *testing.T, srv *Server, limit time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	for srv.stats.inFlight.Load() != 0 {
		if time.Since(t0) > limit {
			t.Fatalf("still %d requests in flight after %v", srv.stats.inFlight.Load(), limit)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(t0)
}

// waitBusy waits (up to 5 s) until the server has n requests in flight.
func waitBusy(t *testing.T, srv *Server, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); srv.stats.inFlight.Load() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests in flight, want %d", srv.stats.inFlight.Load(), n)
		}
	}
}

// TestWorkStopsWhenTheClientLeaves: a client that gives up ends its
// request's work (sleep and CPU burn) within 100 ms, not the 5 s asked.
func TestWorkStopsWhenTheClientLeaves(t *testing.T) {
	srv := start(t, Config{})
	for _, q := range []string{"cpu=5s", "work=5s", "work=1ms&cpu=5s"} {
		t.Run(q, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/?"+q, nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			waitBusy(t, srv, 1)
			cancel()
			<-done
			took := waitIdle(t, srv, 5*time.Second)
			t.Logf("work ended %v after the client left", took)
			if took > 100*time.Millisecond {
				t.Errorf("the work ran on %v after its client left, want within 100 ms", took)
			}
		})
	}
}

// TestShutdownStopsWorkAfterItsGrace: Shutdown waits for requests in
// flight until its context ends, then stops their work: a ?cpu=5s does
// not outlive a 200 ms grace by more than 100 ms, and is counted before
// Shutdown returns.
func TestShutdownStopsWorkAfterItsGrace(t *testing.T) {
	srv, err := Start(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if resp, err := http.Get(srv.URL() + "/?cpu=5s"); err == nil {
			resp.Body.Close()
		}
	}()
	waitBusy(t, srv, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_ = srv.Shutdown(ctx)
	returned := time.Since(t0)
	// What the server says once Shutdown has returned (the summary printed
	// after it) counts the stopped request, as a client that got no answer.
	if v := srv.Stats(); v.InFlight != 0 || v.Statuses["499"] != 1 {
		t.Errorf("right after Shutdown: %d in flight, statuses %v, want 0 and the stopped request as 499", v.InFlight, v.Statuses)
	}
	idle := waitIdle(t, srv, 5*time.Second) + returned
	t.Logf("Shutdown returned after %v; the work ended after %v", returned, idle)
	if idle > 300*time.Millisecond {
		t.Errorf("the work ended %v after Shutdown began, want within the 200 ms grace + 100 ms", idle)
	}
}

// TestResetNotThroughTheServedPath: POST /_mb/reset on the address a
// box or a student reaches is refused (403, saying where it is served)
// and resets nothing.
func TestResetNotThroughTheServedPath(t *testing.T) {
	srv := start(t, Config{})
	get(t, nil, srv.URL()+"/")
	resp, err := http.Post(srv.URL()+"/_mb/reset", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "admin listener") {
		t.Errorf("POST /_mb/reset on the served path: %d %q, want 403 naming the admin listener", resp.StatusCode, body)
	}
	if v := srv.Stats(); v.Requests != 1 {
		t.Errorf("after a refused reset: %d requests, want the 1 served", v.Requests)
	}
}
