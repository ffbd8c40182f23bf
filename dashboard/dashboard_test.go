package dashboard

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/timing"
)

func obs(ms float64, status int) load.Observation {
	d := time.Duration(ms * float64(time.Millisecond))
	return load.Observation{Blocked: d / 10, Waiting: d, Duration: d, Server: d / 2, HasServer: true, Status: status, Failed: status >= 400}
}

// Many VUs at once: the totals are exact.
func TestAggregatorTotalsAreExactUnderConcurrency(t *testing.T) {
	var a Aggregator
	var wg sync.WaitGroup
	for vu := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				status := 200
				if i%10 == 0 {
					status = 429
				}
				a.Observe(vu, obs(10, status))
			}
		}()
	}
	wg.Wait()
	tot := a.Totals()
	if tot.Requests != 100_000 || tot.Failed != 10_000 || tot.Status[200] != 90_000 || tot.Status[429] != 10_000 {
		t.Fatalf("totals %+v", tot)
	}
	if tot.Phase[4] != 100_000*10*time.Millisecond || tot.Phase[0] != 100_000*time.Millisecond || tot.Server != 100_000*5*time.Millisecond {
		t.Fatalf("waiting %v blocked %v server %v", tot.Phase[4], tot.Phase[0], tot.Server)
	}
	a.Observe(3, load.Observation{Status: 999})
	if a.Totals().Status[0] != 1 {
		t.Fatal("an out-of-range status counts as 0 (no response)")
	}
}

// Each tick is the difference of the totals: its requests, its mean
// phases, its statuses; the server's view becomes its rate and mean time.
func TestTickIsTheSecondsDifference(t *testing.T) {
	var a Aggregator
	view := timing.ServerView{}
	d := New("t", Sources{Load: &a, Server: func() timing.ServerView { return view }})
	for range 10 {
		a.Observe(0, obs(10, 200))
	}
	view = timing.ServerView{Requests: 10, ServerTime: map[string]float64{"avg": 4, "count": 10}}
	d.Tick(d.start.Add(time.Second))
	for range 5 {
		a.Observe(1, obs(40, 503))
	}
	view = timing.ServerView{Requests: 15, ServerTime: map[string]float64{"avg": 6, "count": 15}} // 5 more at 10 ms
	d.Tick(d.start.Add(2 * time.Second))
	s := d.Snapshot()
	if len(s.Points) != 2 {
		t.Fatalf("%d points", len(s.Points))
	}
	p1, p2 := s.Points[0], s.Points[1]
	if p1.Requests != 10 || p1.RPS != 10 || p1.Phases[4] != 10 || p1.Status["200"] != 10 || *p1.APM != 4 || *p1.APMRPS != 10 {
		t.Errorf("first second %+v", p1)
	}
	if p2.Requests != 5 || p2.Failed != 5 || p2.Phases[4] != 40 || p2.Duration != 40 || *p2.Server != 20 || p2.Status["503"] != 5 || p2.Status["200"] != 0 {
		t.Errorf("second second %+v", p2)
	}
	if apm := *p2.APM; apm < 9.999 || apm > 10.001 {
		t.Errorf("server's own mean over the second %v, want 10", apm)
	}
	if s.Totals.Requests != 15 || s.Totals.Failed != 5 || s.Totals.Status["503"] != 5 || s.Totals.DurationAvg != 20 {
		t.Errorf("totals %+v", s.Totals)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:26000": true, "[::1]:0": true, "localhost:1": true, "0.0.0.0:26000": false, ":26000": false, "10.0.0.1:80": false} {
		err := CheckAddr(addr, false)
		if (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
		if !ok && !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckAddr(%q): %v, want ErrNotLoopback", addr, err)
		}
	}
	if err := CheckAddr("0.0.0.0:26000", true); err != nil {
		t.Errorf("allowed remote: %v", err)
	}
	if err := CheckAddr("nonsense", false); err == nil {
		t.Error("CheckAddr(nonsense) accepted")
	}
}

// The feed: a page gets the whole state first, then a point per tick.
func TestEventsSendStateThenPoints(t *testing.T) {
	var a Aggregator
	d := New("feed", Sources{Load: &a})
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	next := func() (string, string) {
		var name, data string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[7:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			case line == "" && name != "":
				return name, data
			}
		}
	}
	if name, data := next(); name != "state" || !strings.Contains(data, `"title":"feed"`) {
		t.Fatalf("first event %s %s", name, data)
	}
	a.Observe(0, obs(7, 200))
	d.Tick(time.Now())
	if name, data := next(); name != "point" || !strings.Contains(data, `"requests":1`) {
		t.Fatalf("second event %s %s", name, data)
	}
	d.Finish(nil)
	// Finish's sample covers less than a tick: no point of its own.
	if name, data := next(); name != "final" || !strings.Contains(data, `"final":true`) {
		t.Fatalf("final event %s %s", name, data)
	}
}

// The run's last part, shorter than a tick, goes into the totals but is
// not drawn as a second (6 requests in 0.3 s is not 20 req/s); after the
// run ends the page gets no more seconds (the x axis stops).
func TestFinishDrawsNoPartialSecondAndTheAxisStops(t *testing.T) {
	var a Aggregator
	d := New("tail", Sources{Load: &a})
	for sec := 1; sec <= 3; sec++ {
		for range 6 {
			a.Observe(0, obs(10, 200))
		}
		d.Tick(d.start.Add(time.Duration(sec) * time.Second))
	}
	for range 6 {
		a.Observe(0, obs(10, 200))
	}
	d.finishAt(d.start.Add(3300*time.Millisecond), nil)
	d.Tick(d.start.Add(4 * time.Second))
	d.Tick(d.start.Add(5 * time.Second))
	s := d.Snapshot()
	if len(s.Points) != 3 || s.Totals.Requests != 24 || s.Tail < 0.29 || s.Tail > 0.31 {
		t.Fatalf("%d points, %d requests in the totals, tail %.3f s; want 3 points (the whole seconds), 24 requests, a 0.3 s tail", len(s.Points), s.Totals.Requests, s.Tail)
	}
	for _, p := range s.Points {
		if p.RPS != 6 {
			t.Fatalf("a second drawn at %.0f req/s; every second had 6: %+v", p.RPS, s.Points)
		}
	}
}

// The report is one file that fetches nothing: no src= or href= to
// anywhere, uPlot and the data inlined, and the licence kept.
func TestReportIsSelfContained(t *testing.T) {
	var a Aggregator
	d := New("report", Sources{Load: &a})
	a.Observe(0, obs(12, 200))
	d.Finish(nil)
	path := filepath.Join(t.TempDir(), "r.html")
	if err := d.WriteReport(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, bad := range []string{"src=", "<link", "@import", "url(http"} {
		if strings.Contains(html, bad) {
			t.Errorf("report contains %q: it must fetch nothing", bad)
		}
	}
	for _, want := range []string{"window.MB_DATA = {", `"final":true`, "Leon Sorokin", "uPlot"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestAnswerForm(t *testing.T) {
	var got []string
	d := New("mystery", Sources{Answer: func(name, codes, token string) (string, error) {
		switch {
		case codes == "bad":
			return "", errors.New("bad: not a finding code")
		case name == "taken":
			return "", &AnswerError{Status: http.StatusConflict, Err: errors.New("the name is another's")}
		}
		got = append(got, name+"="+codes+"/"+token)
		return "t1", nil
	}})
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		form   url.Values
		status int
	}{
		{url.Values{"name": {"ada"}, "codes": {"path-latency"}}, 200},
		{url.Values{"name": {""}, "codes": {"path-latency"}}, 400},
		{url.Values{"name": {"bob"}, "codes": {"bad"}}, 400},
		{url.Values{"name": {"taken"}, "codes": {"path-latency"}}, 409},
		{url.Values{"name": {"ada"}, "codes": {"server-slow"}, "token": {"t1"}}, 200},
	} {
		resp, err := http.PostForm(srv.URL+"/answer", tc.form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%v: status %d, want %d", tc.form, resp.StatusCode, tc.status)
		}
	}
	if len(got) != 2 || got[0] != "ada=path-latency/" || got[1] != "ada=server-slow/t1" || d.Snapshot().Answers != 2 {
		t.Fatalf("answers %v, count %d", got, d.Snapshot().Answers)
	}
	noForm := httptest.NewServer(New("load", Sources{}).Handler())
	defer noForm.Close()
	resp, err := http.PostForm(noForm.URL+"/answer", url.Values{"name": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a dashboard without a form answered %d", resp.StatusCode)
	}
}

// PollServer reads a server's /_mb/stats; a failed read keeps the last
// view; before the first read the view is unknown, and the dashboard
// shows no server figures (not zeros).
func TestPollServerKeepsTheLastViewAndUnknownIsNotZero(t *testing.T) {
	var fail bool
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"requests": 42, "windowMs": 1000, "server_time": {"avg": 5, "count": 42}}`))
	}))
	defer srv.Close()
	unreachable := New("x", Sources{Server: PollServer("http://127.0.0.1:1/_mb/stats")})
	unreachable.Tick(unreachable.start.Add(time.Second))
	if s := unreachable.Snapshot(); s.Totals.APM != nil || s.Points[0].APM != nil || s.Points[0].APMRPS != nil {
		t.Fatalf("an unreachable server gave figures: %+v %+v", s.Totals.APM, s.Points[0])
	}
	poll := PollServer(srv.URL)
	if v := poll(); v.Requests != 42 || v.ServerTime["avg"] != 5 {
		t.Fatalf("first read %+v", v)
	}
	mu.Lock()
	fail = true
	mu.Unlock()
	if v := poll(); v.Requests != 42 {
		t.Fatalf("a failed read lost the last view: %+v", v)
	}
}

// PollStages shows a proxy's /stats as the page's stages; before a read
// succeeds the page has none.
func TestPollStages(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"boxes": [{"name": "edge", "stages": [{"kind": "waf", "seen": 7}]}]}`))
	}))
	defer srv.Close()
	none := New("x", Sources{Stages: PollStages("http://127.0.0.1:1/stats")})
	none.Tick(none.start.Add(time.Second))
	if s := none.Snapshot(); s.Stages != nil {
		t.Fatalf("an unreachable proxy gave stages: %s", s.Stages)
	}
	d := New("x", Sources{Stages: PollStages(srv.URL)})
	d.Tick(d.start.Add(time.Second))
	if s := d.Snapshot(); !strings.Contains(string(s.Stages), `"seen":7`) {
		t.Fatalf("stages %s", s.Stages)
	}
}
