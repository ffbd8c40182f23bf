package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// TestConflictingFramingIs400: a request with both Content-Length and
// Transfer-Encoding (RFC 9112 §6.1: a smuggling attempt) is answered 400
// and its connection closed, as nginx does: nothing reaches the origin,
// neither it nor the request smuggled behind it.
func TestConflictingFramingIs400(t *testing.T) {
	smuggled := "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, head := range []string{
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		t.Run(strings.ReplaceAll(head[:min(len(head), 90)], "\r\n", " "), func(t *testing.T) {
			onBothLoops(t, func(t *testing.T, start pathStarter) {
				var seen atomic.Int64
				up := httptestOrigin(t, &seen)
				p := start(t, "boxes: [{stages: [{kind: waf}]}]", up)
				c := sendRaw(t, p.Boxes()[0].Addr(), head+"0\r\n\r\n"+smuggled)
				got, err := io.ReadAll(c)
				if err != nil {
					t.Fatalf("read %q, then %v: want the connection closed after the answer", got, err)
				}
				if !strings.HasPrefix(string(got), "HTTP/1.1 400 ") || strings.Count(string(got), "HTTP/1.1 ") != 1 {
					t.Errorf("got %q, want one 400 and the close", got)
				}
				if n := seen.Load(); n != 0 {
					t.Errorf("the origin saw %d requests, want none", n)
				}
				if s := p.Stats().Boxes[0]; s.BadRequests != 1 {
					t.Errorf("badRequests %d, want 1", s.BadRequests)
				}
			})
		})
	}
}

// httptestOrigin is an origin that counts the requests it sees.
func httptestOrigin(t *testing.T, seen *atomic.Int64) string {
	addr := tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			seen.Add(1)
			io.Copy(io.Discard, req.Body)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok")
		}
	})
	return "http://" + addr
}

// TestUnsolicitedSwitchingProtocolsIs502: a 101 to a request that asked
// for no upgrade is the next hop's error (net/http's ReverseProxy: 502),
// not an interim answer to skip; its connection is not reused.
func TestUnsolicitedSwitchingProtocolsIs502(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		var conns atomic.Int64
		addr := tcptest.Serve(t, func(c net.Conn) {
			defer c.Close()
			conns.Add(1)
			br := bufio.NewReader(c)
			for {
				if err := skipHead(br); err != nil {
					return
				}
				io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"+
					"HTTP/1.1 200 OK\r\nContent-Length: 9\r\nContent-Type: text/plain\r\n\r\nsmuggled!")
			}
		})
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", "http://"+addr)
		client := &http.Client{Timeout: 5 * time.Second}
		resp, body := get(t, client, p.URL()+"/")
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("got %d %q, want 502", resp.StatusCode, body)
		}
		if s := waitStats(t, p, func(s BoxStats) bool { return s.UpstreamErrors == 1 }); s.UpstreamErrors != 1 {
			t.Errorf("upstreamErrors %d, want 1", s.UpstreamErrors)
		}
	})
}

// TestRequestTrailerContentLengthIs400: a chunked request whose trailer
// names Content-Length is the client's error (400), not the next hop's
// (it was answered 502 "bad gateway").
func TestRequestTrailerContentLengthIs400(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		var seen atomic.Int64
		// A stage that does not read the body: the box forwards it as it comes.
		p := start(t, "boxes: [{stages: [{kind: ratelimit, rate: 1000/s}]}]", httptestOrigin(t, &seen))
		c := sendRaw(t, p.Boxes()[0].Addr(), "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"+
			"5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("got %d %q, want 400", resp.StatusCode, body)
		}
		s := waitStats(t, p, func(s BoxStats) bool { return s.BadRequests == 1 })
		if s.UpstreamErrors != 0 || s.BadRequests != 1 {
			t.Errorf("upstreamErrors %d badRequests %d, want 0 and 1", s.UpstreamErrors, s.BadRequests)
		}
	})
}
