package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"github.com/middlebench/middlebench/internal/realtimetest"
)

func TestUpstreamDown(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := dead.Addr().String()
	dead.Close() // nothing listens there now
	p := startYAML(t, "boxes:\n  - name: edge\n  - name: waf\n    stages: [{kind: waf}]\n", "http://"+addr)
	// Through the bytes box to the HTTP box, which answers 502.
	resp, body := get(t, http.DefaultClient, p.URL()+"/x")
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Middlebench-Box") != "waf" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	contains(t, body, `middlebench box "waf": bad gateway: next hop http://`+addr, "connection refused")
	if got := p.Stats().Boxes[1].UpstreamErrors; got != 1 {
		t.Fatalf("upstream errors %d", got)
	}
	// A bytes box alone cannot answer 502: the client sees a closed connection.
	p2 := startYAML(t, "boxes:\n  - name: fw\n", "http://"+addr)
	if _, err := http.Get(p2.URL()); err == nil {
		t.Fatal("want an error from a bytes box with no upstream")
	}
	if got := p2.Stats().Boxes[0].UpstreamErrors; got != 1 {
		t.Fatalf("bytes box upstream errors %d", got)
	}
}

func TestClientDisconnectsMidBody(t *testing.T) {
	up := origin(t)
	for _, stages := range []string{"[{kind: fault}]", "[{kind: waf}]"} {
		t.Run(stages, func(t *testing.T) {
			p := startYAML(t, "boxes:\n  - stages: "+stages+"\n", up.URL)
			c, err := net.Dial("tcp", p.Boxes()[0].Addr())
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n%s", strings.Repeat("b", 1000))
			c.Close()
			// The box notices, counts it and keeps serving.
			deadline := time.Now().Add(5 * time.Second)
			for {
				s := p.Stats().Boxes[0]
				if s.ClientAborts+s.Stages[0].Rejected["499"] >= 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("abort not counted: %+v", s)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if resp, _ := get(t, http.DefaultClient, p.URL()); resp.StatusCode != 200 {
				t.Fatalf("after the abort: %d", resp.StatusCode)
			}
		})
	}
}

func TestMalformedRequest(t *testing.T) {
	up := origin(t)
	p := startYAML(t, "boxes:\n  - stages: [{kind: waf}]\n", up.URL)
	c, err := net.Dial("tcp", p.Boxes()[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GARBAGE / NOT-HTTP\r\n\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 400") {
		t.Fatalf("got %q, %v", line, err)
	}
}

// TestSlowClientsDoNotStallOthers: 1,000 clients that send half a request
// and stall hold no resource a normal client needs.
func TestSlowClientsDoNotStallOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 2,000 sockets")
	}
	up := origin(t)
	for _, src := range []string{"boxes:\n  - stages: [{kind: waf, delay: 1ms}]\n", "boxes:\n  - stages: [{kind: link, latency: 1ms}]\n"} {
		p := startYAML(t, src, up.URL)
		var slow []net.Conn
		for range 1000 {
			c, err := net.Dial("tcp", p.Boxes()[0].Addr())
			if err != nil {
				t.Fatalf("slow client %d: %v", len(slow), err)
			}
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: slow\r\nX-Half: ")
			slow = append(slow, c)
		}
		c := &http.Client{Timeout: 5 * time.Second}
		// Let the burst of 1,000 connects (and, in bytes mode, their
		// upstream dials) be accepted before measuring.
		for deadline := time.Now().Add(10 * time.Second); p.Boxes()[0].Stats().Active < 1000 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		get(t, c, p.URL())
		// ~2–3 ms unloaded; 100 ms leaves room for a shared 2-core machine.
		realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
			var lat []time.Duration
			for range 50 {
				start := time.Now()
				resp, _ := get(t, c, p.URL())
				lat = append(lat, time.Since(start))
				if resp.StatusCode != 200 {
					t.Fatalf("status %d", resp.StatusCode)
				}
			}
			slices.Sort(lat)
			r.Within(p.Boxes()[0].Mode()+" p99 with 1,000 stalled clients", lat[49], 50*time.Millisecond, 50*time.Millisecond)
		})
		for _, s := range slow {
			s.Close()
		}
		c.CloseIdleConnections()
		p.Close()
	}
}

// TestNoLeaks runs traffic through every stage kind, closes the path and
// checks that no goroutine and no file descriptor is left behind.
func TestNoLeaks(t *testing.T) {
	up := origin(t)
	warm := &http.Client{}
	get(t, warm, up.URL) // let the test's own pools settle before counting
	warm.CloseIdleConnections()
	defer leaktest.Check(t)()
	src := `boxes:
  - name: edge
    stages:
      - kind: accept
        rate: 1000/s
        backlog: 16
      - kind: link
        latency: 1ms
      - kind: bandwidth
        down: 50MiB/s
      - kind: reset
        percent: 100
        after: 1GiB
      - kind: slowclose
        delay: 1ms
      - kind: tls
        handshakeDelay: 1ms
        maxConcurrentHandshakes: 4
  - name: device
    stages:
      - kind: waf
        delay: 1ms
        maxConcurrent: 2
      - kind: ratelimit
        rate: 1000/s
      - kind: uablock
        patterns: [nothing-matches]
      - kind: fault
        delayPercent: 50
        delay: 1ms
`
	p := startYAML(t, src, up.URL)
	c := tlsClient(p, true, false)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				resp, err := c.Get(p.URL() + "/?size=10000")
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	c.CloseIdleConnections()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestAcceptBacklogMovesConnecting(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for SYN retransmissions (1 s)")
	}
	up := origin(t)
	p := startYAML(t, "boxes:\n  - stages:\n      - kind: accept\n        rate: 4/s\n        backlog: 1\n", up.URL)
	var mu sync.Mutex
	var times []time.Duration
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			start := time.Now()
			c, err := net.DialTimeout("tcp", p.Boxes()[0].Addr(), 10*time.Second)
			took := time.Since(start)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			mu.Lock()
			times = append(times, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(times)
	t.Logf("connect times: %v", times)
	if len(times) != 8 || times[len(times)-1] < 900*time.Millisecond {
		t.Fatalf("no connection waited for a SYN retransmission: %v", times)
	}
	if s := p.Stats().Boxes[0].Stages[0]; s.Extra["waits"] == 0 {
		t.Fatalf("accept never waited for a token: %+v", s)
	}
}
