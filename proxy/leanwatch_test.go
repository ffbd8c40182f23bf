package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The watch of a client whose request waits on the next hop starts when a
// poll says the client has something to say (h1loop's waitList). These are the
// three things it can say, each checked against what net/http's
// background read does with it.

// dialBox opens a raw connection to the path's first box after one
// request on another has left the box an idle connection to the next
// hop: a request that dials its own waits on the dial's context, which
// starts the watch at once, not through h1loop's waitList.
func dialBox(t *testing.T, p *Path) net.Conn {
	t.Helper()
	resp, err := http.Get(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}

// TestLeanWatchKeepsAPipelinedRequest: bytes of the next request sent
// while the first waits on a slow next hop end nothing: both are answered.
func TestLeanWatchKeepsAPipelinedRequest(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
		c := dialBox(t, p)
		io.WriteString(c, "GET /?work=300ms HTTP/1.1\r\nHost: h\r\n\r\n")
		waitStats(t, p, func(s BoxStats) bool { return s.Requests == 2 })
		io.WriteString(c, "GET /after HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
		br := bufio.NewReader(c)
		for i := range 2 {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("answer %d: %v", i+1, err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("answer %d: %d, want 200", i+1, resp.StatusCode)
			}
		}
		if s := waitStats(t, p, func(s BoxStats) bool { return s.Requests == 3 }); s.ClientAborts != 0 || s.Requests != 3 {
			t.Errorf("%+v: want three requests and no client abort", s)
		}
	})
}

// TestLeanHalfCloseWhileUpstreamWorks: a client that closes its sending
// side while the next hop works has left, for net/http's background read
// (its read ends): counted as gone before the work ends, no answer.
func TestLeanHalfCloseWhileUpstreamWorks(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
		c := dialBox(t, p)
		io.WriteString(c, "GET /?work=3s HTTP/1.1\r\nHost: h\r\n\r\n")
		waitStats(t, p, func(s BoxStats) bool { return s.Requests == 2 })
		t0 := time.Now()
		c.(*net.TCPConn).CloseWrite()
		s := waitStats(t, p, func(s BoxStats) bool { return s.ClientAborts == 1 })
		if s.ClientAborts != 1 || time.Since(t0) > 2500*time.Millisecond || s.UpstreamErrors != 0 {
			t.Fatalf("after %v: %+v, want one client abort before the 3 s of work end", time.Since(t0), s)
		}
		if b, _ := io.ReadAll(c); len(b) != 0 {
			t.Errorf("a client that left got %q", b)
		}
	})
}

// TestLeanReadTimeoutEndsAWaitingRequest: a request still waiting on the
// next hop at its whole-request deadline (readTimeout from its start) has
// its context ended, as net/http's background read times out, though its
// silent client says nothing a poll would see.
func TestLeanReadTimeoutEndsAWaitingRequest(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := origin(t)
		p := start(t, "boxes: [{readTimeout: 500ms, stages: [{kind: waf}]}]", up.URL)
		c := dialBox(t, p)
		t0 := time.Now()
		io.WriteString(c, "GET /?work=3s HTTP/1.1\r\nHost: h\r\n\r\n")
		s := waitStats(t, p, func(s BoxStats) bool { return s.ClientAborts == 1 })
		if took := time.Since(t0); s.ClientAborts != 1 || took < 500*time.Millisecond || took > 2500*time.Millisecond {
			t.Fatalf("after %v: %+v, want the request ended at its 500 ms deadline, before the 3 s of work end", took, s)
		}
	})
}
