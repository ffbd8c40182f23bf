package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// echoOrigin answers with the request it got: method, target, body length
// and every header as "Name: value" lines; ?chunked=1 streams it in two
// chunks, ?notype=1 leaves the Content-Type out (the box passes none on).
func echoOrigin(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		var sb strings.Builder
		fmt.Fprintf(&sb, "%s %s body=%d\nHost: %s\n", r.Method, r.RequestURI, n, r.Host)
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range r.Header {
				if !yield(k) {
					return
				}
			}
		}) {
			for _, v := range r.Header[k] {
				fmt.Fprintf(&sb, "%s: %s\n", k, v)
			}
		}
		q := r.URL.Query()
		if q.Get("notype") == "" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header()["Content-Type"] = nil // net/http sends none
		}
		if q.Get("chunked") != "" {
			w.(http.Flusher).Flush() // no Content-Length: chunked
			io.WriteString(w, "first\n")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, sb.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// exchangeRaw writes in on one connection and reads n answers (the first
// to a HEAD when in starts with one; a body cut by a reset counts as read
// when the box answered before reading all of in).
func exchangeRaw(t *testing.T, addr, in string, n int) ([]*http.Response, []string) {
	t.Helper()
	c := sendRaw(t, addr, in)
	br := bufio.NewReader(c)
	var resps []*http.Response
	var bodies []string
	for i := range n {
		var req *http.Request
		if i == 0 && strings.HasPrefix(in, "HEAD ") {
			req = &http.Request{Method: http.MethodHead}
		}
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			t.Fatalf("answer %d to %.60q: %v", len(resps)+1, in, err)
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil && !(resp.Close && resp.StatusCode >= 400) {
			t.Fatalf("answer %d body: %v", len(resps)+1, err)
		}
		resps, bodies = append(resps, resp), append(bodies, string(b))
	}
	return resps, bodies
}

// TestLeanLoopAnswersAsNetHTTP: what the lean loop takes and what it hands
// to net/http get the answers net/http's server and ReverseProxy give.
func TestLeanLoopAnswersAsNetHTTP(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := echoOrigin(t)
		p := start(t, "boxes: [{stages: [{kind: waf}, {kind: uablock, patterns: [^blocked$]}]}]", up.URL)
		addr := strings.TrimPrefix(p.URL(), "http://")
		big := strings.Repeat("x", 5000)
		huge := strings.Repeat("x", 1<<20+8192)
		tests := []struct {
			name, in string
			answers  int
			status   []int
			body     []string // one substring per answer, or several of the last answer's
			absent   []string // … that must not be there
			closes   bool     // the last answer says Connection: close
		}{
			{"plain GET", "GET /a?b=1 HTTP/1.1\r\nHost: h\r\nX-One: 1\r\n\r\n", 1, []int{200},
				[]string{"GET /a?b=1 body=0\nHost: h\n", "X-One: 1\n", "X-Forwarded-For: 127.0.0.1\n", "X-Forwarded-Host: h\n", "X-Forwarded-Proto: http\n"}, nil, false},
			{"hop-by-hop headers dropped, forwarded ones replaced", "GET / HTTP/1.1\r\nHost: h\r\nConnection: X-Gone\r\nX-Gone: 1\r\nKeep-Alive: 5\r\nX-Forwarded-For: 10.9.9.9\r\nForwarded: for=x\r\n\r\n", 1, []int{200},
				[]string{"X-Forwarded-For: 127.0.0.1\n"}, []string{"X-Gone", "Keep-Alive", "10.9.9.9", "Forwarded: for"}, false},
			{"Content-Length body", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", 1, []int{200}, []string{"POST / body=5"}, nil, false},
			{"chunked body (net/http)", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 1, []int{200}, []string{"POST / body=5"}, nil, false},
			{"pipelined, then close", "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 2, []int{200, 200},
				[]string{"GET /1 ", "GET /2 "}, nil, true},
			{"head over the lean buffer (net/http)", "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + big + "\r\n\r\n", 1, []int{200}, []string{"X-Big: " + big}, nil, false},
			{"head over MaxHeaderBytes", "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + huge + "\r\n\r\n", 1, []int{431}, nil, nil, true},
			{"no Host", "GET / HTTP/1.1\r\n\r\n", 1, []int{400}, nil, nil, true},
			{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 1, []int{400}, nil, nil, true},
			{"bad version", "GET / HTTP/9.9\r\nHost: h\r\n\r\n", 1, []int{505}, nil, nil, true},
			{"garbage", "GARBAGE / NOT-HTTP\r\n\r\n", 1, []int{400}, nil, nil, true},
			{"HTTP/1.0", "GET / HTTP/1.0\r\n\r\n", 1, []int{200}, []string{"GET / body=0"}, nil, true},
			{"Expect: 100-continue", "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc", 2, []int{100, 200}, []string{"", "POST / body=3"}, nil, false},
			{"blocked with its body unread, then the next request", "POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: blocked\r\nContent-Length: 10\r\n\r\n0123456789GET /next HTTP/1.1\r\nHost: h\r\n\r\n", 2, []int{403, 200},
				[]string{"uablock", "GET /next "}, nil, false},
			{"chunked answer", "GET /?chunked=1 HTTP/1.1\r\nHost: h\r\n\r\nGET /after HTTP/1.1\r\nHost: h\r\n\r\n", 2, []int{200, 200}, []string{"first\nGET /?chunked=1 ", "GET /after "}, nil, false},
			{"answer without a Content-Type", "GET /?notype=1 HTTP/1.1\r\nHost: h\r\n\r\n", 1, []int{200}, []string{"GET /?notype=1"}, nil, false},
			{"HEAD", "HEAD / HTTP/1.1\r\nHost: h\r\n\r\nGET /after HTTP/1.1\r\nHost: h\r\n\r\n", 2, []int{200, 200}, []string{"", "GET /after "}, nil, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				resps, bodies := exchangeRaw(t, addr, tt.in, tt.answers)
				for i, resp := range resps {
					if resp.StatusCode != tt.status[i] {
						t.Errorf("answer %d: %d %q, want %d", i+1, resp.StatusCode, bodies[i], tt.status[i])
					}
					if i < len(tt.body) && !strings.Contains(bodies[i], tt.body[i]) && len(tt.body) == len(resps) {
						t.Errorf("answer %d: %q does not contain %q", i+1, bodies[i], tt.body[i])
					}
				}
				if len(tt.body) > 0 && len(tt.body) != len(resps) {
					for _, want := range tt.body {
						contains(t, bodies[len(bodies)-1], want)
					}
				}
				for _, not := range tt.absent {
					if strings.Contains(bodies[len(bodies)-1], not) {
						t.Errorf("%q reached the origin in %q", not, bodies[len(bodies)-1])
					}
				}
				last := resps[len(resps)-1]
				if got := last.Close; got != tt.closes {
					t.Errorf("last answer closes: %v, want %v (%v)", got, tt.closes, last.Header)
				}
				if last.StatusCode == 200 && strings.Contains(tt.in, "notype=1") && last.Header.Get("Content-Type") != "" {
					t.Errorf("Content-Type %q: the box sniffed one (a proxy passes the head as it is)", last.Header.Get("Content-Type"))
				}
				if last.StatusCode < 300 && last.Header.Get("Date") == "" {
					t.Errorf("no Date: %v", last.Header)
				}
			})
		}
	})
}

// TestLeanClientGoneDuringDelay: a client that leaves during a stage's
// delay is noticed before the delay ends (the watch starts when the stage
// waits), counted as gone (499), and the next hop never sees the request.
func TestLeanClientGoneDuringDelay(t *testing.T) {
	up := origin(t)
	p := startYAML(t, "boxes: [{stages: [{kind: waf, delay: 5s}]}]", up.URL)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	waitStats(t, p, func(s BoxStats) bool { return s.Requests == 1 })
	t0 := time.Now()
	c.Close()
	s := waitStats(t, p, func(s BoxStats) bool { return s.Stages[0].Rejected["499"] == 1 })
	if got := s.Stages[0].Rejected["499"]; got != 1 || time.Since(t0) > 4*time.Second {
		t.Fatalf("client gone counted %d after %v, want 1 before the 5 s delay ends", got, time.Since(t0))
	}
	if s.Stages[0].Passed != 0 {
		t.Errorf("passed %d, want 0", s.Stages[0].Passed)
	}
}

// TestLeanClientGoneWhileUpstreamWorks: a client that leaves while the
// next hop works is noticed (the watch starts once the next hop is slow),
// the exchange with the next hop interrupted, the client counted as gone.
func TestLeanClientGoneWhileUpstreamWorks(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /?work=5s HTTP/1.1\r\nHost: h\r\n\r\n")
		waitStats(t, p, func(s BoxStats) bool { return s.Requests == 1 })
		t0 := time.Now()
		c.Close()
		s := waitStats(t, p, func(s BoxStats) bool { return s.ClientAborts == 1 })
		if s.ClientAborts != 1 || time.Since(t0) > 4*time.Second || s.UpstreamErrors != 0 {
			t.Fatalf("after %v: %+v, want one client abort before the 5 s of work end", time.Since(t0), s)
		}
	})
}

// TestLeanShortClientBody: a client that sends less than its
// Content-Length and leaves is counted as gone, and gets no answer.
func TestLeanShortClientBody(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, "boxes: [{stages: [{kind: fault}]}]", up.URL)
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: "+strconv.Itoa(100000)+"\r\n\r\nabc")
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		c.Close()
		if len(b) != 0 {
			t.Errorf("a client that left mid-body got %q", b)
		}
		s := waitStats(t, p, func(s BoxStats) bool { return s.ClientAborts == 1 })
		if s.ClientAborts != 1 || s.UpstreamErrors != 0 {
			t.Errorf("%+v: want one client abort", s)
		}
	})
}
