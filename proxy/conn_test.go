package proxy

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"

	"github.com/middlebench/middlebench/internal/realtimetest"
)

// tlsClient trusts the path's entry certificate.
func tlsClient(p *Path, reuse bool, ticketCache bool) *http.Client {
	cfg := &tls.Config{RootCAs: p.Boxes()[0].pool}
	if ticketCache {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(8)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: !reuse}}
}

// TestTLSHandshakeDelayE1: with new connections every request, the
// handshake pays 300 ms and duration does not; with reuse only the first.
func TestTLSHandshakeDelayE1(t *testing.T) {
	up := origin(t)
	for _, mode := range []string{ModeBytes, ModeHTTP} {
		t.Run(mode, func(t *testing.T) {
			src := "boxes:\n  - name: lb\n    stages:\n      - kind: tls\n        handshakeDelay: 300ms\n"
			if mode == ModeHTTP {
				src += "      - kind: waf\n"
			}
			realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
				p := startYAML(t, src, up.URL)
				if !strings.HasPrefix(p.URL(), "https://") || p.Boxes()[0].Mode() != mode {
					t.Fatalf("url %s mode %s", p.URL(), p.Boxes()[0].Mode())
				}
				fresh := tlsClient(p, false, false)
				for range 2 {
					req, _ := http.NewRequest("GET", p.URL()+"/?work=50ms", nil)
					ph, _ := trace(t, fresh, req)
					r.Within("tls_handshaking (new connection)", ph.tls, 300*time.Millisecond, 20*time.Millisecond)
					r.Within("waiting", ph.waiting, 50*time.Millisecond, 15*time.Millisecond)
				}
				reused := tlsClient(p, true, false)
				var tlsTimes []time.Duration
				for range 3 {
					req, _ := http.NewRequest("GET", p.URL()+"/?work=50ms", nil)
					ph, _ := trace(t, reused, req)
					tlsTimes = append(tlsTimes, ph.tls)
				}
				r.Within("first request's handshake (reuse)", tlsTimes[0], 300*time.Millisecond, 20*time.Millisecond)
				if tlsTimes[1] != 0 || tlsTimes[2] != 0 {
					t.Errorf("reused connections handshook again: %v", tlsTimes)
				}
				s := p.Stats().Boxes[0].Stages[0]
				if s.Extra["handshakes"] != 3 || s.Extra["tls1.3"] != 3 || s.Delay["count"] != 3 {
					t.Errorf("stats %+v", s)
				}
			})
		})
	}
}

func TestTLSResumptionAndVersions(t *testing.T) {
	up := origin(t)
	for _, tt := range []struct {
		name, extra string
		resumed     int64
		version     string
	}{
		{"tickets on", "", 2, "tls1.3"},
		{"tickets off", "        resumption: false\n", 0, "tls1.3"},
		{"tls 1.2", "        maxVersion: \"1.2\"\n", 2, "tls1.2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n"+tt.extra, up.URL)
			c := tlsClient(p, false, true)
			for range 3 {
				get(t, c, p.URL())
			}
			s := p.Stats().Boxes[0].Stages[0]
			if s.Extra["resumed"] != tt.resumed || s.Extra[tt.version] != 3 {
				t.Fatalf("extra %v, want %d resumed and 3 %s", s.Extra, tt.resumed, tt.version)
			}
		})
	}
}

func TestTLSHandshakeCapacityQueues(t *testing.T) {
	up := origin(t)
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n        handshakeDelay: 100ms\n        maxConcurrentHandshakes: 1\n", up.URL)
		done := make(chan time.Duration, 3)
		for range 3 {
			go func() {
				start := time.Now()
				c := tlsClient(p, false, false)
				resp, err := c.Get(p.URL())
				if err == nil {
					resp.Body.Close()
				}
				done <- time.Since(start)
			}()
		}
		var slowest time.Duration
		for range 3 {
			slowest = max(slowest, <-done)
		}
		r.Within("third handshake in a queue of one", slowest, 300*time.Millisecond, 40*time.Millisecond)
		s := p.Stats().Boxes[0].Stages[0]
		if s.Extra["queued"] != 2 || s.Queued["max"] < 150 {
			t.Fatalf("stats %+v", s)
		}
	})
}

// TestLinkAddsRoundTrips: 20 ms each way adds 40 ms to each round trip:
// the request → response one always, the TLS 1.3 handshake one more. The
// handshake's own CPU (about 10 ms under the race detector) is no round
// trip: it is taken from a handshake through the same box without the
// link, made in the same round.
func TestLinkAddsRoundTrips(t *testing.T) {
	up := origin(t)
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		near := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n", up.URL)
		base, _ := trace(t, tlsClient(near, true, false), mustRequest(t, near.URL()+"/?size=65536"))
		p := startYAML(t, "boxes:\n  - stages:\n      - kind: link\n        latency: 20ms\n      - kind: tls\n", up.URL)
		c := tlsClient(p, true, false)
		req, _ := http.NewRequest("GET", p.URL()+"/?size=65536", nil)
		ph, _ := trace(t, c, req)
		r.Within("connecting (kernel handshake, not delayed)", ph.connect, 0, 5*time.Millisecond)
		r.Difference("tls_handshaking (1 RTT) − the same without the link", ph.tls-base.tls, 40*time.Millisecond, 10*time.Millisecond)
		r.Within("waiting (1 RTT)", ph.waiting, 40*time.Millisecond, 10*time.Millisecond)
		req, _ = http.NewRequest("GET", p.URL()+"/?size=65536", nil)
		ph, _ = trace(t, c, req)
		// The 64 KiB response leaves as a burst: not 20 ms per chunk.
		r.Within("reused: whole request", ph.total, 40*time.Millisecond, 10*time.Millisecond)
	})
}

// TestLinkThenTLSConnectionClose: a request with Connection: close through
// a link and a TLS terminator gets its whole response. tls.Conn sets a
// write deadline of "now" after its close_notify; on the link's socket it
// used to drop the response still in flight (every request of the
// distance experiment's new-connection runs failed with EOF).
func TestLinkThenTLSConnectionClose(t *testing.T) {
	up := origin(t)
	p := startYAML(t, "boxes:\n  - stages:\n      - kind: link\n        latency: 5ms\n      - kind: tls\n", up.URL)
	c := tlsClient(p, false, false)
	for range 3 {
		req, _ := http.NewRequest("GET", p.URL()+"/?size=70000", nil)
		req.Close = true
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(body) != 70000 {
			t.Fatalf("status %d, %d bytes, %v", resp.StatusCode, len(body), err)
		}
	}
}

// TestBandwidthCapDown: 1 MiB through a 2 MiB/s cap takes 0.5 s.
func TestBandwidthCapDown(t *testing.T) {
	up := origin(t)
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		p := startYAML(t, "boxes:\n  - stages:\n      - kind: bandwidth\n        down: 2MiB/s\n        up: 2MiB/s\n", up.URL)
		start := time.Now()
		resp, body := get(t, http.DefaultClient, p.URL()+"/?size=1048576")
		took := time.Since(start)
		if resp.StatusCode != 200 || len(body) != 1<<20 {
			t.Fatalf("status %d, %d bytes", resp.StatusCode, len(body))
		}
		// The first 20 KiB (the bucket) pass at once: 0.5 s − 10 ms.
		r.Within("1 MiB at 2 MiB/s", took, 490*time.Millisecond, 25*time.Millisecond)
		start = time.Now()
		resp2, err := http.Post(p.URL(), "application/octet-stream", strings.NewReader(strings.Repeat("u", 1<<20)))
		if err != nil {
			t.Fatal(err)
		}
		resp2.Body.Close()
		r.Within("1 MiB upload at 2 MiB/s", time.Since(start), 500*time.Millisecond, 30*time.Millisecond)
	})
}

// TestBytesModeForwardsAnything: a box with no HTTP stage passes bytes,
// even a protocol that is not HTTP, and half-closes properly.
func TestBytesModeForwardsAnything(t *testing.T) {
	echo := tcptest.Serve(t, func(c net.Conn) {
		io.Copy(c, c) // echo until the client half-closes
		c.Close()
	})
	p := startYAML(t, "boxes:\n  - name: a\n  - name: b\n    stages:\n      - kind: link\n        latency: 1ms\n", "http://"+echo)
	c, err := net.Dial("tcp", p.Boxes()[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	msg := strings.Repeat("not http\n", 10000)
	go func() {
		io.WriteString(c, msg)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != msg {
		t.Fatalf("echo: %d bytes, %v", len(got), err)
	}
	p.Close()
	for _, b := range p.Stats().Boxes {
		if b.Mode != ModeBytes || b.BytesUp != int64(len(msg)) || b.BytesDown != int64(len(msg)) {
			t.Errorf("box %s: %+v", b.Name, b)
		}
	}
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
