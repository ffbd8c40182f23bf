package proxy

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func budgetStats(t *testing.T, p *Path) StageStats {
	t.Helper()
	for _, s := range p.Stats().Boxes[0].Stages {
		if s.Kind == "budget" {
			return s
		}
	}
	t.Fatal("no budget stage in the box's stats")
	return StageStats{}
}

// A budget of 50/s (burst 1) in front of a uablock that rejects every
// request at once: 5 clients asking as fast as they can get 60 requests
// through in no less than 59/50 s (the pace is a lower bound), every one
// answered by the blocker (none refused: the wait stays under maxWait),
// and the stage counts each request it held.
func TestBudgetPacesALoadRejectedAtOnce(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, `
boxes:
  - name: edge
    listen: 127.0.0.1:0
    stages:
      - {kind: budget, rate: 50/s, burst: 1, inFlight: 4}
      - {kind: uablock, blockEmpty: true}
`, up.URL)
		const clients, perClient = 5, 12
		var wg sync.WaitGroup
		statuses := make(chan int, clients*perClient)
		begin := time.Now()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perClient {
					resp, _ := get(t, http.DefaultClient, p.URL()+"/")
					statuses <- resp.StatusCode
				}
			}()
		}
		wg.Wait()
		took := time.Since(begin)
		close(statuses)
		for s := range statuses {
			if s != http.StatusForbidden {
				t.Fatalf("status %d; every request should reach the blocker (403)", s)
			}
		}
		min := time.Duration(clients*perClient-1) * time.Second / 50
		if took < min {
			t.Fatalf("60 requests in %v; a 50/s budget needs at least %v", took, min)
		}
		st := budgetStats(t, p)
		if st.Seen != 60 || st.Passed != 60 || st.RejectedTotal() != 0 || st.Extra["held"] < 50 || st.Delay["count"] != float64(st.Extra["held"]) {
			t.Fatalf("budget counted %+v; want 60 seen and passed, none refused, at least 50 held (each with its delay)", st)
		}
		t.Logf("60 requests in %v (bound %v); held %d, %.1f ms on average", took, min, st.Extra["held"], st.Delay["avg"])
	})
}

// A request that would wait past maxWait is answered 503 at once, and
// counted as refused.
func TestBudgetRefusesBeyondMaxWait(t *testing.T) {
	up := origin(t)
	p := startYAML(t, `
boxes:
  - name: edge
    listen: 127.0.0.1:0
    stages:
      - {kind: budget, rate: 1/s, burst: 1, maxWait: 100ms}
`, up.URL)
	if resp, _ := get(t, http.DefaultClient, p.URL()+"/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first request: %d, want 200 (the burst)", resp.StatusCode)
	}
	begin := time.Now()
	resp, body := get(t, http.DefaultClient, p.URL()+"/")
	if resp.StatusCode != http.StatusServiceUnavailable || time.Since(begin) > 90*time.Millisecond {
		t.Fatalf("second request: %d after %v (%q); want 503 at once (the turn is ~1 s away, past maxWait)", resp.StatusCode, time.Since(begin), body)
	}
	if st := budgetStats(t, p); st.Rejected["503"] != 1 || st.Passed != 1 {
		t.Fatalf("budget counted %+v; want 1 passed, 1 refused 503", st)
	}
}

// A connection budget of 20/s (burst 1) in front of a byte box: ten new
// connections, one after another, take no less than 9/20 s, and the stage
// counts the accepts it held.
func TestBudgetPacesNewConnections(t *testing.T) {
	up := origin(t)
	p := startYAML(t, `
boxes:
  - name: net
    listen: 127.0.0.1:0
    stages:
      - {kind: budget, connRate: 20/s, connBurst: 1}
      - {kind: link, latency: 0ms}
`, up.URL)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	begin := time.Now()
	for range 10 {
		if resp, _ := get(t, client, p.URL()+"/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	took := time.Since(begin)
	if min := 9 * time.Second / 20; took < min {
		t.Fatalf("10 new connections in %v; a 20/s budget needs at least %v", took, min)
	}
	st := budgetStats(t, p)
	if st.Seen != 10 || st.Passed != 10 || st.Extra["held"] < 8 {
		t.Fatalf("budget counted %+v; want 10 connections seen and passed, at least 8 held", st)
	}
	t.Logf("10 connections in %v; held %d", took, st.Extra["held"])
}

func TestBudgetConfigErrors(t *testing.T) {
	for _, tc := range []struct{ stage, want string }{
		{"budget:burst=3", "rate: required"},
		{"budget:rate=10/s,inFlight=-1", "inFlight: must not be negative"},
		{"budget:rate=10/s,maxWait=-1s", "must not be negative"},
		{"budget:rate=10/s,connRate=5/s", "use two stages"},
		{"budget:connBurst=3", "needs connRate"},
	} {
		sc, err := ParseStage(tc.stage)
		if err == nil {
			_, err = sc.Spec.compile()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.stage, err, tc.want)
		}
	}
}
