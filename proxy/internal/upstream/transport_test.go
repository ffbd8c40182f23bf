package upstream

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// TestTransportReuse: a connection goes back to the pool only when its
// answer was read to the end, allows keep-alive, left nothing unread and
// has not idled past IdleLimit; otherwise the next request dials anew.
func TestTransportReuse(t *testing.T) {
	var conns, requests atomic.Int64
	addr := tcptest.Serve(t, func(c net.Conn) {
		conns.Add(1)
		defer c.Close()
		r := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(r)
			if err != nil {
				return
			}
			requests.Add(1)
			io.Copy(io.Discard, req.Body)
			switch req.URL.Path {
			case "/close":
				io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
				return
			case "/extra": // bytes nobody asked for after the answer
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokjunk")
			default:
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}
		}
	})
	for _, tc := range []struct {
		name, path string
		idleLimit  time.Duration
		conns      int64 // for two requests one after the other (each sent once: no retry)
	}{
		{"kept alive and reused", "/", IdleTimeout, 1},
		{"the answer says close", "/close", IdleTimeout, 2},
		{"bytes after the answer", "/extra", IdleTimeout, 2},
		{"idle past the limit", "/", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := &url.URL{Scheme: "http", Host: addr}
			tr := NewTransport(next, nil, 4, &http.Transport{})
			defer tr.Close()
			tr.IdleLimit.Store(tc.idleLimit)
			before, sent := conns.Load(), requests.Load()
			for i := range 2 {
				req, _ := http.NewRequest("GET", next.String()+tc.path, nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatalf("request %d: %v", i+1, err)
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "ok" || err != nil {
					t.Fatalf("request %d: body %q, %v; want ok", i+1, b, err)
				}
			}
			if got := conns.Load() - before; got != tc.conns {
				t.Errorf("the next hop saw %d connections, want %d", got, tc.conns)
			}
			if got := requests.Load() - sent; got != 2 {
				t.Errorf("the next hop saw %d requests, want 2 (a retry: a connection reused that should not have been)", got)
			}
		})
	}
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8080/x", "127.0.0.1:8080"},
		{"http://example.test/", "example.test:80"},
		{"https://example.test", "example.test:443"},
		{"https://[::1]/", "[::1]:443"},
	} {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := HostPort(u); got != tc.want {
			t.Errorf("HostPort(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
