package fakeserver

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

func mustDist(t *testing.T, s string) units.Dist {
	t.Helper()
	d, err := units.ParseDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// askingClock is a fake clock that tells the test each wait the server
// starts on it (after the timer is set, so that advancing by it fires it):
// here, the work distribution's draws.
type askingClock struct {
	*clock.Fake
	asked chan time.Duration
}

func (c askingClock) NewTimer(d time.Duration) clock.Timer {
	tm := c.Fake.NewTimer(d)
	c.asked <- d
	return tm
}

// TestWorkModels: each request's work is a draw of the distribution: on a
// fake clock moved by exactly what the server waits for, app;dur is that
// draw to the µs, the draws lie within the distribution's range and their
// mean near its own, and a distribution does not come out fixed. Whether
// the wait really takes its time is TestWorkTakesItsTimeInRealTime's.
func TestWorkModels(t *testing.T) {
	tests := []struct {
		work       string
		n          int
		lo, hi     float64 // every draw must fall here (ms)
		meanLo     float64 // and the mean here
		meanHi     float64
		wantSpread bool // a distribution must not come out fixed
	}{
		{work: "50ms", n: 5, lo: 50, hi: 50, meanLo: 50, meanHi: 50},
		{work: "uniform:20ms..40ms", n: 30, lo: 20, hi: 40, meanLo: 26, meanHi: 34, wantSpread: true},
		{work: "normal:30ms,3ms", n: 30, lo: 15, hi: 46, meanLo: 27.5, meanHi: 32.5, wantSpread: true},
		{work: "lognormal:p50=20ms,p99=60ms", n: 30, lo: 4, hi: 200, meanLo: 15, meanHi: 35, wantSpread: true},
		{work: "exponential:10ms", n: 40, lo: 0, hi: 150, meanLo: 5, meanHi: 17, wantSpread: true},
	}
	for _, tt := range tests {
		t.Run(tt.work, func(t *testing.T) {
			fc := askingClock{clock.NewFake(time.Unix(1_700_000_000, 0)), make(chan time.Duration, 1)}
			srv := start(t, Config{Work: mustDist(t, tt.work), Clock: fc})
			var durs []float64
			sum := 0.0
			for i := range tt.n {
				answer := getAsync(srv.URL() + "/")
				var drawn time.Duration
				select {
				case drawn = <-fc.asked:
					fc.Advance(drawn)
				case <-time.After(10 * time.Second):
					t.Fatalf("request %d: the server started no wait in 10 s", i)
				}
				resp, _ := await(t, answer, 10*time.Second)
				want, _ := strconv.ParseFloat(strconv.FormatFloat(timing.Millis(drawn), 'f', 3, 64), 64)
				if got := parseServerTiming(t, resp.Header)["app"]; got != want {
					t.Errorf("request %d: app;dur %v ms, want the draw %v ms", i, got, want)
				}
				d := timing.Millis(drawn)
				if d < tt.lo || d > tt.hi {
					t.Errorf("request %d: drew %.3f ms, outside %v..%v", i, d, tt.lo, tt.hi)
				}
				durs = append(durs, d)
				sum += d
			}
			mean := sum / float64(tt.n)
			t.Logf("%d draws, mean %.3f ms (band %v..%v)", tt.n, mean, tt.meanLo, tt.meanHi)
			if mean < tt.meanLo || mean > tt.meanHi {
				t.Errorf("mean of the draws %.3f ms, outside %v..%v", mean, tt.meanLo, tt.meanHi)
			}
			slices.Sort(durs)
			if spread := durs[len(durs)-1] - durs[0]; tt.wantSpread && spread < 1 {
				t.Errorf("spread %.3f ms: the distribution came out fixed", spread)
			}
			v := srv.Stats()
			if got := v.Requests; got != int64(tt.n) {
				t.Errorf("stats count %d requests, want %d", got, tt.n)
			}
			assertWithin(t, "stats server time avg − mean draw (ms)", v.ServerTime["avg"]-mean, -0.001, 0.001)
		})
	}
}

// TestWorkTakesItsTimeInRealTime: on the wall clock, 50 ms of work takes
// 50 ms and at most 1.5 ms more (judged on the best of three rounds).
func TestWorkTakesItsTimeInRealTime(t *testing.T) {
	const n = 5
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{Work: mustDist(t, "50ms")})
		sum := 0.0
		for range n {
			resp, _ := get(t, nil, srv.URL()+"/")
			d := parseServerTiming(t, resp.Header)["app"]
			r.Band("app;dur (ms)", d, 50, 51.5)
			sum += d
		}
		r.Band("mean app ms", sum/n, 50, 51.5)
		if got := srv.Stats().Requests; got != n {
			t.Errorf("stats count %d requests, want %d", got, n)
		}
	})
}

// TestServerTimingMatchesStats: what the header says is what the APM view holds.
func TestServerTimingMatchesStats(t *testing.T) {
	srv := start(t, Config{Work: units.Fixed(20 * time.Millisecond)})
	var sum float64
	for range 5 {
		resp, _ := get(t, nil, srv.URL()+"/")
		sum += parseServerTiming(t, resp.Header)["app"]
	}
	v := srv.Stats()
	assertWithin(t, "stats avg − header avg (ms)", v.ServerTime["avg"]-sum/5, -0.001, 0.001)
	if v.Statuses["200"] != 5 || v.ServerTime["count"] != 5 {
		t.Errorf("statuses %v, count %v", v.Statuses, v.ServerTime["count"])
	}
}

// TestWorkerPoolQueues: 2 workers, 100 ms each, 6 requests at once: three
// waves, queue waits 0, 0, 100, 100, 200, 200 ms. On a fake clock, moved
// 100 ms once all six wait (two working, four queued) and then once per
// wave, the times are exact.
func TestWorkerPoolQueues(t *testing.T) {
	srv, fc := fakeClockServer(t, Config{Workers: 2, Work: units.Fixed(100 * time.Millisecond)})
	var answers []<-chan fetched
	for range 6 {
		answers = append(answers, getAsync(srv.URL()+"/"))
	}
	for wave := range 3 {
		waitFor(t, 10*time.Second, func() string {
			if q, want := srv.queued.Load(), int64(4-2*wave); q != want || !fc.WaitPending(2, time.Millisecond) {
				return fmt.Sprintf("wave %d: %d queued, want %d, and two workers waiting on the clock", wave, q, want)
			}
			return ""
		})
		fc.Advance(100 * time.Millisecond)
	}
	var queues, apps []float64
	for _, a := range answers {
		resp, _ := await(t, a, 10*time.Second)
		st := parseServerTiming(t, resp.Header)
		queues, apps = append(queues, st["queue"]), append(apps, st["app"])
	}
	slices.Sort(queues)
	if want := []float64{0, 0, 100, 100, 200, 200}; !slices.Equal(queues, want) {
		t.Errorf("queue ms %v, want %v", queues, want)
	}
	for _, a := range apps {
		if a != 100 {
			t.Errorf("app ms %v, want 100 (the queue excluded)", apps)
			break
		}
	}
	if avg := srv.Stats().QueueTime["avg"]; avg < 99.9 || avg > 100.1 {
		t.Errorf("stats queue avg %v ms, want 100", avg)
	}
}

// TestMaxQueueAnswers503: one worker, a queue of one: the first request in
// service, the second queued, the third is answered 503. On a fake clock
// the first's work does not end before the third arrives.
func TestMaxQueueAnswers503(t *testing.T) {
	srv, fc := fakeClockServer(t, Config{Workers: 1, MaxQueue: 1, Work: units.Fixed(150 * time.Millisecond)})
	codes := make(chan fetched, 3)
	send := func() {
		go func() { codes <- <-getAsync(srv.URL() + "/") }()
	}
	send()
	if !fc.WaitPending(1, 5*time.Second) {
		t.Fatal("the first request did not begin its work within 5 s")
	}
	send()
	for deadline := time.Now().Add(5 * time.Second); srv.queued.Load() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued after 5 s, want the second", srv.queued.Load())
		}
	}
	send()
	var got []int
	for len(got) < 3 {
		select {
		case f := <-codes:
			if f.err != nil {
				t.Fatalf("statuses %v, then GET: %v", got, f.err)
			}
			got = append(got, f.resp.StatusCode)
		case <-time.After(5 * time.Second):
			t.Fatalf("statuses %v after 5 s, want 3", got)
		}
		if len(got) < 3 && fc.WaitPending(1, 5*time.Second) {
			fc.Advance(150 * time.Millisecond) // the one in service ends, the queued one begins
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{200, 200, 503}) {
		t.Errorf("statuses %v, want one in service, one queued, one 503", got)
	}
}

func TestBodySizeStatusAndOverrides(t *testing.T) {
	srv := start(t, Config{Size: 1000, Status: 201})
	tests := []struct {
		query      string
		wantStatus int
		wantLen    int
		wantErr    string
	}{
		{query: "", wantStatus: 201, wantLen: 1000},
		{query: "?size=256KiB", wantStatus: 201, wantLen: 256 * 1024},
		{query: "?size=0&status=204", wantStatus: 204, wantLen: 0},
		{query: "?status=429&size=3", wantStatus: 429, wantLen: 3},
		{query: "?status=503&cachebuster=1", wantStatus: 503, wantLen: 1000},
		{query: "?work=10%6Ds", wantStatus: 201, wantLen: 1000}, // escaped "10ms"
		{query: "?work=soon", wantStatus: 400, wantErr: "query parameter work"},
		{query: "?cpu=-1ms", wantStatus: 400, wantErr: "query parameter cpu"},
		{query: "?size=8K", wantStatus: 400, wantErr: "query parameter size"},
		{query: "?size=2GiB", wantStatus: 400, wantErr: "limit"},
		{query: "?status=99", wantStatus: 400, wantErr: "query parameter status"},
		{query: "?status=abc", wantStatus: 400, wantErr: "query parameter status"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp, body := get(t, nil, srv.URL()+"/"+tt.query)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantErr != "" {
				if !strings.Contains(string(body), tt.wantErr) {
					t.Errorf("body %q does not name %q", body, tt.wantErr)
				}
				return
			}
			if len(body) != tt.wantLen {
				t.Errorf("body %d bytes, want %d", len(body), tt.wantLen)
			}
			parseServerTiming(t, resp.Header) // every answer carries a well-formed Server-Timing
		})
	}
}

func TestGzipWhenAccepted(t *testing.T) {
	srv := start(t, Config{Size: 64 * 1024, Gzip: true})
	noAuto := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	tests := []struct {
		accept   string
		wantGzip bool
	}{
		{accept: "gzip", wantGzip: true},
		{accept: "br, gzip;q=0.5", wantGzip: true},
		{accept: "gzip;q=0", wantGzip: false},
		{accept: "identity", wantGzip: false},
		{accept: "", wantGzip: false},
	}
	for _, tt := range tests {
		t.Run(tt.accept, func(t *testing.T) {
			resp, body := get(t, noAuto, srv.URL()+"/", "Accept-Encoding", tt.accept)
			gz := resp.Header.Get("Content-Encoding") == "gzip"
			if gz != tt.wantGzip {
				t.Fatalf("Content-Encoding %q, want gzip=%v", resp.Header.Get("Content-Encoding"), tt.wantGzip)
			}
			if !gz {
				if len(body) != 64*1024 {
					t.Fatalf("plain body %d bytes", len(body))
				}
				return
			}
			zr, err := gzip.NewReader(strings.NewReader(string(body)))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || len(plain) != 64*1024 {
				t.Fatalf("gunzipped %d bytes (%v)", len(plain), err)
			}
			ratio := float64(len(body)) / float64(len(plain))
			assertWithin(t, "gzip ratio", ratio, 0.2, 0.8) // text-like: shrinks, but not to nothing
		})
	}
	waitRequests(t, srv, 5)
	if out := srv.Stats().BytesOut; out >= 5*64*1024 {
		t.Errorf("bytesOut %d counts uncompressed bytes; want wire bytes", out)
	}
}

func TestCPUBurnCountsCPUTime(t *testing.T) {
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{CPU: units.Duration(20 * time.Millisecond)})
		resp, _ := get(t, nil, srv.URL()+"/")
		// Alone, CPU time ≈ wall time; the race detector or a busy machine only adds.
		r.Band("app ms for cpu=20ms", parseServerTiming(t, resp.Header)["app"], 20, 80)
	})
}

func TestQueryOverridesCPUAndWork(t *testing.T) {
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		srv := start(t, Config{})
		resp, _ := get(t, nil, srv.URL()+"/?work=30ms&cpu=5ms")
		r.Band("app ms for work=30ms cpu=5ms", parseServerTiming(t, resp.Header)["app"], 35, 60)
	})
}

func TestAdminEndpoints(t *testing.T) {
	srv := start(t, Config{Size: 10, AdminListen: "127.0.0.1:0"})
	get(t, nil, srv.URL()+"/a")
	get(t, nil, srv.URL()+"/b?status=500")
	resp, body := get(t, nil, srv.URL()+"/_mb/stats")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"requests": 2`) || !strings.Contains(string(body), `"500": 1`) {
		t.Errorf("stats: %d %s", resp.StatusCode, body)
	}
	_, body = get(t, nil, srv.URL()+"/metrics")
	for _, want := range []string{`middlebench_server_requests_total{code="200"} 1`, `middlebench_server_requests_total{code="500"} 1`, "middlebench_server_app_seconds_count 2", "middlebench_server_sent_body_bytes_total 20"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	resp, _ = get(t, nil, srv.URL()+"/_mb/health")
	if resp.StatusCode != 200 {
		t.Errorf("health %d", resp.StatusCode)
	}
	resp, body = get(t, nil, srv.URL()+"/_mb/nope")
	if resp.StatusCode != 404 || !strings.Contains(string(body), "/_mb/stats") {
		t.Errorf("unknown admin path: %d %s", resp.StatusCode, body)
	}
	resp, body = get(t, nil, srv.AdminURL()+"/_mb/stats")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"requests": 2`) {
		t.Errorf("stats on the admin listener: %d %s", resp.StatusCode, body)
	}
	r, err := http.Post(srv.AdminURL()+"/_mb/reset", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNoContent {
		t.Errorf("POST /_mb/reset on the admin listener: %d", r.StatusCode)
	}
	if v := srv.Stats(); v.Requests != 0 || len(v.Statuses) != 0 {
		t.Errorf("after reset: %d requests, %v", v.Requests, v.Statuses)
	}
}

func TestTLS(t *testing.T) {
	srv := start(t, Config{TLS: true, Size: 5})
	if !strings.HasPrefix(srv.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL %s", srv.URL())
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig.InsecureSkipVerify = true
	resp, body := get(t, &http.Client{Transport: tr}, srv.URL()+"/")
	if resp.StatusCode != 200 || len(body) != 5 || resp.TLS == nil {
		t.Fatalf("status %d body %d tls %v", resp.StatusCode, len(body), resp.TLS != nil)
	}
}

func TestShutdownFinishesInFlight(t *testing.T) {
	srv, err := Start(t.Context(), Config{Work: units.Fixed(200 * time.Millisecond), Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	answer := getAsync(srv.URL() + "/")
	waitBusy(t, srv, 1)
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if resp, body := await(t, answer, 10*time.Second); resp.StatusCode != 200 || len(body) != 3 {
		t.Fatalf("in-flight request ended with %d and %d bytes, want 200 and 3", resp.StatusCode, len(body))
	}
	if _, err := http.Get(srv.URL() + "/"); err == nil {
		t.Fatal("server still accepts after Close")
	}
}

func TestListensOnLoopbackByDefault(t *testing.T) {
	srv := start(t, Config{})
	if host := srv.Addr().String(); !strings.HasPrefix(host, "127.0.0.1:") {
		t.Fatalf("listening on %s", host)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Workers: -1}, "workers"},
		{Config{MaxQueue: 3}, "maxQueue: needs workers"},
		{Config{Status: 99}, "status"},
		{Config{Size: 2 * units.MiB, MaxSize: units.MiB}, "maxSize"},
		{Config{CPU: units.Duration(11 * time.Second)}, "cpu"},
		{Config{CPU: units.Duration(2 * time.Second), MaxCPU: units.Duration(time.Second)}, "maxCPU"},
		{Config{Work: units.Fixed(2 * time.Minute)}, "work"},
		{Config{AdminListen: "0.0.0.0:0"}, "adminListen"},
	}
	for _, tt := range tests {
		_, err := Start(t.Context(), tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Start(%+v) = %v, want an error naming %q", tt.cfg, err, tt.want)
		}
	}
	if _, err := Start(t.Context(), Config{Listen: "127.0.0.1:99999"}); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("bad listen address: %v", err)
	}
}

// TestSummaryLine: the shutdown line names the statuses it served, and
// says nothing of them when it served none.
func TestSummaryLine(t *testing.T) {
	srv := start(t, Config{})
	if s := srv.Summary(); !strings.HasPrefix(s, "served 0 requests in ") {
		t.Errorf("idle summary %q", s)
	}
	get(t, nil, srv.URL()+"/")
	get(t, nil, srv.URL()+"/?status=429")
	waitRequests(t, srv, 2)
	if s := srv.Summary(); !strings.HasPrefix(s, "served 2 requests (200×1 429×1) in ") {
		t.Errorf("summary %q", s)
	}
}
