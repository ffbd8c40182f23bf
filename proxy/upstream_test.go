package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// countingOrigin is origin that also counts the connections it accepted.
func countingOrigin(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(origin(t).Config.Handler)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestUpstreamKeepAlive: an HTTP box reuses its connection to the next hop,
// and opens a new one when the response asked to close or the idle one is
// too old.
func TestUpstreamKeepAlive(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		tests := []struct {
			name      string
			query     string
			idleLimit time.Duration
			wantConns int64
		}{
			{"reused", "/?size=100", upstream.IdleTimeout, 1},
			{"response says close", "/?close=1", upstream.IdleTimeout, 5},
			{"idle too long", "/", 0, 5},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				up, conns := countingOrigin(t)
				if tt.query == "/?close=1" {
					up.Config.Handler = closingHandler(up.Config.Handler)
				}
				p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
				p.Boxes()[0].rp.(*upstream.Proxy).Transport.IdleLimit.Store(tt.idleLimit)
				c := &http.Client{}
				defer c.CloseIdleConnections()
				for range 5 {
					if resp, _ := get(t, c, p.URL()+tt.query); resp.StatusCode != 200 {
						t.Fatalf("status %d", resp.StatusCode)
					}
				}
				if got := conns.Load(); got != tt.wantConns {
					t.Errorf("next hop accepted %d connections for 5 requests, want %d", got, tt.wantConns)
				}
			})
		}
	})
}

func closingHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		h.ServeHTTP(w, r)
	})
}

// hangUpOrigin answers each connection's first request with keep-alive
// headers, then closes the connection silently: the next request a box
// sends on it finds it dead. Each close is reported on the channel.
func hangUpOrigin(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	closed := make(chan struct{}, 100)
	url := "http://" + tcptest.Serve(t, func(c net.Conn) {
		defer func() {
			c.Close()
			closed <- struct{}{}
		}()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	return url, closed
}

func post(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Post(url, "text/plain", strings.NewReader("payload"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// TestUpstreamStaleConnection: a GET that meets a connection the next hop
// closed is sent again on a new one; a POST cannot be replayed and gets
// the box's 502, which names the box.
func TestUpstreamStaleConnection(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		origin, closed := hangUpOrigin(t)
		p := start(t, "boxes: [{name: device, stages: [{kind: waf}]}]", origin)
		c := &http.Client{}
		defer c.CloseIdleConnections()
		for i := range 3 {
			resp, body := get(t, c, p.URL())
			if resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("GET %d: %d %q", i+1, resp.StatusCode, body)
			}
			select { // the box's idle connection is now dead
			case <-closed:
			case <-time.After(5 * time.Second):
				t.Fatalf("GET %d: the origin did not close its connection", i+1)
			}
		}
		if strings.Contains(t.Name(), "http_loop") {
			// The HTTP loop served the GETs on its own connections to the
			// next hop; a request with a body goes to the lean loop, whose
			// pool is its own: a first POST leaves it a connection, which
			// the next hop closes. (The GETs' answers, without a
			// Content-Type, were handed to the lean loop to be sniffed
			// before issue 36, which left it one.)
			resp, body := post(t, c, p.URL())
			if resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("the first POST: %d %q", resp.StatusCode, body)
			}
			select {
			case <-closed:
			case <-time.After(5 * time.Second):
				t.Fatal("the origin did not close the first POST's connection")
			}
		}
		resp, body := post(t, c, p.URL())
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), `box "device"`) {
			t.Errorf("POST on a dead connection: %d %q, want the box's 502", resp.StatusCode, body)
		}
	})
}

// TestUpstreamExtraBytesAreNotAnAnswer: a next hop that sends more than
// its answer (here 4 bytes past its Content-Length) on a connection it
// keeps open does not answer the next request with them: the box closes
// that connection, and the next request goes on a new one.
func TestUpstreamExtraBytesAreNotAnAnswer(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		var conns atomic.Int64
		addr := tcptest.Serve(t, func(c net.Conn) {
			defer c.Close()
			conns.Add(1)
			br := bufio.NewReader(c)
			for skipHead(br) == nil {
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nokJUNK")
			}
		})
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", "http://"+addr)
		c := &http.Client{}
		defer c.CloseIdleConnections()
		for i := range 3 {
			if resp, body := get(t, c, p.URL()); resp.StatusCode != 200 || body != "ok" {
				t.Fatalf("GET %d: %d %q, want 200 \"ok\"", i+1, resp.StatusCode, body)
			}
		}
		if got := conns.Load(); got != 3 {
			t.Errorf("the next hop saw %d connections for 3 requests, want 3 (none reused after its extra bytes)", got)
		}
	})
}

// TestUpstreamSkipsInterimResponses: 103 Early Hints (and 100 Continue)
// come before the final answer, which is what the client gets.
func TestUpstreamSkipsInterimResponses(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
			w.Write([]byte("final"))
		}))
		defer up.Close()
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
		resp, body := get(t, http.DefaultClient, p.URL())
		if resp.StatusCode != 200 || body != "final" {
			t.Errorf("got %d %q, want 200 \"final\"", resp.StatusCode, body)
		}
	})
}

// TestUpstreamUpgrade: a request that upgrades the connection is spliced
// through (by the fallback transport): bytes flow both ways after the 101.
func TestUpstreamUpgrade(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" {
			http.Error(w, "want Upgrade: echo", http.StatusBadRequest)
			return
		}
		c, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		line, _ := rw.ReadString('\n')
		io.WriteString(c, "echo: "+line)
	}))
	defer up.Close()
	p := startYAML(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	io.WriteString(c, "ping\n")
	if line, err := br.ReadString('\n'); err != nil || line != "echo: ping\n" {
		t.Errorf("after the upgrade read %q, %v", line, err)
	}
}
