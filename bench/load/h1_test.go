package load

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"maps"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/tcptest"
	"github.com/middlebench/middlebench/internal/units"
)

// scripted serves each connection's requests in turn: answer returns the
// bytes for a request (its head given) and whether to close after them.
// got counts the request bytes the server read.
func scripted(t *testing.T, answer func(head string) (resp string, closeAfter bool)) (url string, got *atomic.Int64) {
	t.Helper()
	return scriptedNth(t, func(head string, _ int) (string, bool) { return answer(head) })
}

// scriptedNth is scripted whose answer is also told the request's place
// on its connection (0 for the first).
func scriptedNth(t *testing.T, answer func(head string, nth int) (resp string, closeAfter bool)) (url string, got *atomic.Int64) {
	t.Helper()
	got = new(atomic.Int64)
	return "http://" + tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for nth := 0; ; nth++ {
			head, err := readTestHead(br)
			if err != nil {
				return
			}
			got.Add(int64(len(head)))
			resp, closeAfter := answer(head, nth)
			if _, err := c.Write([]byte(resp)); err != nil || closeAfter {
				return
			}
		}
	}) + "/", got
}

// readTestHead reads one request head, through its blank line.
func readTestHead(br *bufio.Reader) (string, error) {
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return "", err
		}
		head.WriteString(line)
		if line == "\r\n" {
			return head.String(), nil
		}
	}
}

func answers(resp string, closeAfter bool) func(string) (string, bool) {
	return func(string) (string, bool) { return resp, closeAfter }
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// outcome is what a run reports that must not depend on the client.
type outcome struct {
	requests, failed        int64
	statuses                map[int]int64
	errors                  map[string]int64
	codes                   map[int]int64
	sent, received, connect float64
}

func outcomeOf(res *Result, reqs []map[string]float64) outcome {
	d := res.Document()
	o := outcome{requests: res.Requests, failed: res.Failed, statuses: res.Statuses, errors: res.Errors, codes: res.ErrorCodes,
		sent: d.Metrics[mDataSent].Values["count"], received: d.Metrics[mDataReceived].Values["count"]}
	for _, r := range reqs {
		if r[mConnecting] > 0 {
			o.connect++
		}
	}
	return o
}

func (o outcome) String() string {
	return fmt.Sprintf("%d requests (%d failed), statuses %v, errors %v, codes %v, data_sent %v, data_received %v, %v connects",
		o.requests, o.failed, o.statuses, o.errors, o.codes, o.sent, o.received, o.connect)
}

// TestLeanBehavesAsNetHTTP runs each exchange through the lean client and
// through net/http against the same server: requests, statuses, error
// classes and k6 codes, bytes sent and received, and connections opened
// are the same. want is what the server was scripted to produce.
func TestLeanBehavesAsNetHTTP(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nServer-Timing: app;dur=0.5\r\nContent-Length: 3\r\n\r\nok\n"
	const n, vus = 8, 2
	tests := []struct {
		name     string
		answer   func(string) (string, bool)
		cfg      Config
		status   int // every request's status, 0: none (an error)
		class    string
		connects int  // requests that open a connection
		retried  bool // the server drops kept-alive connections: the lean client re-sends (data_sent differs)
	}{
		{name: "keep-alive", answer: answers(ok, false), status: 200, connects: vus},
		{name: "Connection: close", answer: answers("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nok\n", true), status: 200, connects: n},
		{name: "HTTP/1.0", answer: answers("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n", true), status: 200, connects: n},
		{name: "HTTP/1.0 keep-alive", answer: answers("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nok\n", false), status: 200, connects: vus},
		{name: "chunked with trailer", answer: answers("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n3\r\nok\n\r\n4;ext=1\r\nmore\r\n0\r\nX-T: 1\r\n\r\n", false), status: 200, connects: vus},
		{name: "to the end of the connection", answer: answers("HTTP/1.1 200 OK\r\n\r\nall of this", true), status: 200, connects: n},
		{name: "1xx first", answer: answers("HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false), status: 200, connects: vus},
		{name: "204 with a length", answer: answers("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", false), status: 204, connects: vus},
		{name: "304", answer: answers("HTTP/1.1 304 Not Modified\r\n\r\n", false), status: 304, connects: vus},
		{name: "HEAD", cfg: Config{Method: "HEAD"}, answer: answers("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", false), status: 200, connects: vus},
		{name: "gzip", cfg: Config{Compress: true}, answer: answers("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "+fmt.Sprint(len(gzipped("hello")))+"\r\n\r\n"+gzipped("hello"), false), status: 200, connects: vus},
		{name: "long header", answer: answers("HTTP/1.1 200 OK\r\nX-Long: "+strings.Repeat("x", 9000)+"\r\nContent-Length: 3\r\n\r\nok\n", false), status: 200, connects: vus},
		// Lines ended by LF alone, kept alive: both clients read them (net/http's
		// parser), at once, not when the timeout ends the wait for a CRLFCRLF.
		{name: "bare LF", answer: answers("HTTP/1.1 200 OK\nContent-Length: 3\n\nok\n", false), cfg: Config{Timeout: dur(5 * time.Second)}, status: 200, connects: vus},
		{name: "folded header", answer: answers("HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 3\r\n\r\nok\n", false), status: 200, connects: vus},
		{name: "404", answer: answers("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false), status: 404, connects: vus},
		{name: "closes idle kept-alive connections", answer: answers(ok, true), cfg: Config{Think: units.Fixed(20 * time.Millisecond)}, status: 200, connects: n},
		{name: "closes kept-alive connections at once", answer: answers(ok, true), status: 200, connects: n, retried: true},
		{name: "garbage", answer: answers("SSH-2.0-OpenSSH_9.6\r\n\r\n", true), class: "protocol", connects: n},
		{name: "truncated", answer: answers("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", true), class: "eof", connects: n},
		{name: "bad chunk", answer: answers("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", true), class: "protocol", connects: n},
		{name: "bad length", answer: answers("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", true), class: "other", connects: n},
		{name: "no answer", answer: answers("", true), class: "eof", connects: n},
		{name: "timeout", answer: func(string) (string, bool) { time.Sleep(400 * time.Millisecond); return "", true },
			cfg: Config{Timeout: dur(100 * time.Millisecond)}, class: "timeout", connects: n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, serverGot := scripted(t, tt.answer)
			var got [2]outcome
			var heard [2]int64 // request bytes the server read in each run
			for i, netHTTPOnly := range []bool{true, false} {
				cfg := tt.cfg
				// Each VU its share, so that each opens its connection.
				cfg.URL, cfg.VUs, cfg.Iterations, cfg.Executor = url, vus, n/vus, PerVUIterations
				if !netHTTPOnly && !lean(t, &cfg) {
					t.Fatal("the lean client does not take this request")
				}
				var buf bytes.Buffer
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				before := serverGot.Load()
				res, err := Run(ctx, &cfg, Options{JSON: &buf, netHTTPOnly: netHTTPOnly})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				heard[i] = serverGot.Load() - before
				got[i] = outcomeOf(res, reqPoints(t, buf.Bytes()))
				t.Logf("net/http only %v: %v; %v", netHTTPOnly, got[i], res.ErrorExamples)
			}
			std, h1 := got[0], got[1]
			want := outcome{requests: n, statuses: map[int]int64{}, errors: map[string]int64{}, codes: map[int]int64{}, connect: float64(tt.connects)}
			if tt.status != 0 {
				want.statuses[tt.status] = n
			}
			if tt.class != "" || tt.status >= 400 {
				want.failed = n
			}
			if tt.class != "" {
				want.errors[tt.class] = n
			}
			for i, o := range got {
				w := want
				if tt.retried && i == 0 {
					// net/http re-sends a request whose kept-alive connection the
					// server closed before its reader saw it, and by k6's tracer
					// rule (GotConn on the dead connection stamped connect start
					// and end) that request's dial falls in blocked: one connect
					// fewer per head net/http wrote that the server never read.
					perHead := float64(heard[0]) / n
					resent := math.Round(max(std.sent-float64(heard[0]), 0) / perHead)
					if o.connect <= want.connect && o.connect >= want.connect-resent {
						w.connect = o.connect
					}
				}
				if o.requests != w.requests || o.failed != w.failed || !maps.Equal(o.statuses, w.statuses) ||
					!maps.Equal(o.errors, w.errors) || o.connect != w.connect {
					t.Errorf("got %v\nwant %v", o, w)
				}
			}
			if !maps.Equal(std.codes, h1.codes) || std.received != h1.received {
				t.Errorf("net/http %v\nlean     %v", std, h1)
			}
			// data_sent: the lean client counts what the server read (and, when
			// it re-sends on a connection the server closed, more); net/http
			// may count a last write after the iteration that made it has
			// ended, and so leave it out.
			// When the server drops kept-alive connections, net/http's re-sent
			// heads count too (their number bounds its missing connects above).
			if (!tt.retried && h1.sent != float64(heard[1])) || h1.sent < float64(heard[1]) || (!tt.retried && std.sent > float64(heard[0])) {
				t.Errorf("data_sent: lean %v, the server read %d; net/http %v, the server read %d", h1.sent, heard[1], std.sent, heard[0])
			}
		})
	}
}

// TestLeanPhasesAsNetHTTP: against a server that answers 3 ms after the
// request, both clients put the server's time in waiting (and at most 1 ms
// more), keep sending and receiving in µs, blocked on a kept-alive
// connection near 0, connecting on each VU's first request only; duration
// is the sum of its phases to the nanosecond. The server's time is what its
// sleeps took, measured in the same run: a 3 ms sleep on a VM whose idle
// CPUs wake slowly takes up to 4.5 ms, which is the server's time, not the
// client's: the kept-alive requests' waiting is judged against the sleeps
// of the same requests (a connection's first sleep, often longer, is left
// out of both). Judged on the best of three rounds (realtimetest).
func TestLeanPhasesAsNetHTTP(t *testing.T) {
	const work = 3 * time.Millisecond
	var slept, answered atomic.Int64 // on kept-alive connections: not a connection's first request
	url, _ := scriptedNth(t, func(_ string, nth int) (string, bool) {
		t0 := time.Now()
		time.Sleep(work)
		if nth > 0 {
			slept.Add(int64(time.Since(t0)))
			answered.Add(1)
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false
	})
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		var avg [2]map[string]float64
		for i, netHTTPOnly := range []bool{true, false} {
			var buf bytes.Buffer
			slept0, answered0 := slept.Load(), answered.Load()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := Run(ctx, &Config{URL: url, VUs: 2, Iterations: 50, Executor: PerVUIterations}, Options{JSON: &buf, netHTTPOnly: netHTTPOnly})
			cancel()
			if err != nil || res.Failed != 0 {
				t.Fatalf("%v %v", err, res.ErrorExamples)
			}
			reqs := reqPoints(t, buf.Bytes())
			avg[i] = map[string]float64{}
			connects := 0
			for _, p := range reqs {
				if d := p[mDuration] - (p[mSending] + p[mWaiting] + p[mReceiving]); d > 1e-6 || d < -1e-6 {
					t.Errorf("duration %v ≠ sending+waiting+receiving %v", p[mDuration], p[mSending]+p[mWaiting]+p[mReceiving])
				}
				if p[mConnecting] > 0 {
					connects++
					continue
				}
				for m, v := range p {
					avg[i][m] += v / float64(len(reqs)-2)
				}
			}
			if connects != 2 {
				t.Errorf("net/http only %v: %d requests connected, want 2", netHTTPOnly, connects)
			}
			name := map[bool]string{true: "net/http", false: "lean"}[netHTTPOnly]
			t.Logf("%s, kept-alive requests' averages (ms): %v", name, avg[i])
			server := float64(slept.Load()-slept0) / float64(answered.Load()-answered0) / 1e6
			if server < float64(work)/1e6 {
				t.Fatalf("the server's sleeps averaged %.3f ms, less than the %v asked", server, work)
			}
			r.Band(name+" waiting (ms)", avg[i][mWaiting], server, server+1)
			r.Band(name+" sending (ms)", avg[i][mSending], 0, 0.1)
			r.Band(name+" receiving (ms)", avg[i][mReceiving], 0, 0.2)
			r.Band(name+" blocked (ms)", avg[i][mBlocked], 0, 0.1)
		}
	})
}

// TestLeanRedirectElsewhere: a redirect to another address leaves the
// lean client's connection for the next iteration and follows through
// net/http, whose connection is kept too: each VU connects once to each.
func TestLeanRedirectElsewhere(t *testing.T) {
	final, _ := scripted(t, answers("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false))
	start, _ := scripted(t, answers("HTTP/1.1 302 Found\r\nLocation: "+final+"done\r\nContent-Length: 0\r\n\r\n", false))
	cfg := &Config{URL: start, VUs: 2, Iterations: 5, Executor: PerVUIterations}
	if !lean(t, cfg) {
		t.Fatal("the lean client does not take the first hop")
	}
	res, reqs := runPoints(t, cfg)
	connects := 0
	for _, r := range reqs {
		if r[mConnecting] > 0 {
			connects++
		}
	}
	if res.Requests != 20 || res.Statuses[302] != 10 || res.Statuses[200] != 10 || res.Failed != 0 || connects != 4 {
		t.Errorf("%v, statuses %v, %d connects; want 10 × 302, 10 × 200, 4 connects (%v)", res, res.Statuses, connects, res.ErrorExamples)
	}
}
