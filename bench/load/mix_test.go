package load

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

func TestWeightedMixAndPerNameThresholds(t *testing.T) {
	var fast, slow atomic.Int64
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			slow.Add(1)
			time.Sleep(20 * time.Millisecond)
		} else {
			fast.Add(1)
		}
		if r.Header.Get("User-Agent") != "Grafana k6/1.4.2" || r.Header.Get("X-Test") != "1" {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	ua := "Grafana k6/1.4.2"
	cfg := &Config{VUs: 4, Iterations: 400, UserAgent: &ua,
		Requests: []Request{
			{Name: "list", URL: s.URL + "/list", Weight: 3, Headers: map[string]string{"X-Test": "1"}},
			{Name: "detail", URL: s.URL + "/slow", Weight: 1, Headers: map[string]string{"X-Test": "1"}},
		},
		Thresholds: ThresholdsOf(map[string][]string{
			"http_req_duration{name:list}":   {"p(95)<15"},
			"http_req_duration{name:detail}": {"p(95)<15"},
			"http_reqs{name:detail}":         {"count>0"},
		})}
	res := runFor(t, cfg, 60*time.Second)
	if res.Failed != 0 {
		t.Fatalf("%d failed (User-Agent or headers not sent): %v", res.Failed, res.Statuses)
	}
	// Each of the 400 draws is "list" with p = 3/4: the count is binomial,
	// mean 300, sd √(400·¾·¼) ≈ 8.66; four sd either side is 300 ± 34.
	// (The band used to be a ratio of 3 ± 0.8, which is −2.9 … +2.7 sd,
	// not the four it meant: it failed about one run in 200.)
	list := fast.Load()
	t.Logf("list %d, detail %d (weights 3:1: list 300 ± 34 of 400)", list, slow.Load())
	if list+slow.Load() != 400 || list < 300-34 || list > 300+34 {
		t.Errorf("list %d, detail %d: want 400 in all, list 300 ± 34", list, slow.Load())
	}
	d := res.Document()
	if d.Metrics["http_req_duration{name:list}"].Thresholds["p(95)<15"].OK != true ||
		d.Metrics["http_req_duration{name:detail}"].Thresholds["p(95)<15"].OK != false {
		t.Errorf("per-name thresholds: %+v / %+v", d.Metrics["http_req_duration{name:list}"], d.Metrics["http_req_duration{name:detail}"])
	}
	if res.ThresholdsFailed != 1 {
		t.Errorf("%d thresholds failed, want 1", res.ThresholdsFailed)
	}
	if n := d.Metrics["http_reqs{name:detail}"].Values["count"]; int64(n) != slow.Load() {
		t.Errorf("http_reqs{name:detail} = %v, server saw %d", n, slow.Load())
	}
}

func TestRampingArrivalRateSteps(t *testing.T) {
	s := newServer(t, sleepyHandler(0))
	cfg := &Config{URL: s.URL, StartRate: 20, PreAllocatedVUs: 5, MaxVUs: 10,
		Stages: []Stage{stage(time.Second, 20), stage(0, 60), stage(time.Second, 60)}}
	var reports atomic.Int64
	res, err := Run(t.Context(), cfg, Options{Progress: func(Progress) { reports.Add(1) }, ProgressEvery: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	started := res.Iterations + res.Dropped + res.Interrupted
	if started < 79 || started > 81 {
		t.Errorf("%d arrivals, want 80 ± 1 (20 in the first second, 60 in the second)", started)
	}
	d := res.Document()
	if len(d.Steps) != 2 || d.Steps[0].Rate != 20 || d.Steps[1].Rate != 60 {
		t.Fatalf("steps %+v", d.Steps)
	}
	for _, st := range d.Steps {
		t.Logf("%s: %v requests", st.Name, st.Metrics[mHTTPReqs].Values["count"])
	}
	if reports.Load() < 5 {
		t.Errorf("%d progress reports in 2 s at 200 ms", reports.Load())
	}
	if d.Run.Rate != 60 {
		t.Errorf("run rate %v", d.Run.Rate)
	}
}

func TestRedirectsAreRequests(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		w.Write([]byte("done\n"))
	}))
	res := runFor(t, &Config{URL: s.URL + "/start", VUs: 1, Iterations: 3}, 10*time.Second)
	if res.Requests != 6 || res.Iterations != 3 || res.Statuses[302] != 3 || res.Statuses[200] != 3 || res.Failed != 0 {
		t.Errorf("following redirects: %v, statuses %v", res, res.Statuses)
	}
	zero := 0
	res = runFor(t, &Config{URL: s.URL + "/start", VUs: 1, Iterations: 3, MaxRedirects: &zero}, 10*time.Second)
	if res.Requests != 3 || res.Statuses[302] != 3 {
		t.Errorf("maxRedirects 0: %v, statuses %v", res, res.Statuses)
	}
}
