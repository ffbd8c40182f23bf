package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// TestHeadIsNotHeldForABodyWithoutContentType: an answer whose body comes
// slowly reaches the client's first byte as soon as its head does, with or
// without a Content-Type: the box does not wait for 512 bytes of body to
// sniff one (net/http's server does; a proxy passes the head on), which
// moved the body's time from receiving into waiting (2.0 s to the first
// byte where direct is 0.8 ms).
func TestHeadIsNotHeldForABodyWithoutContentType(t *testing.T) {
	for _, ct := range []string{"", "Content-Type: text/plain\r\n"} {
		name := "no Content-Type"
		if ct != "" {
			name = "Content-Type"
		}
		t.Run(name, func(t *testing.T) {
			onBothLoops(t, func(t *testing.T, start pathStarter) {
				release := make(chan struct{})
				addr := tcptest.Serve(t, func(c net.Conn) {
					defer c.Close()
					br := bufio.NewReader(c)
					if skipHead(br) != nil {
						return
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n"+ct+"\r\n0123456789")
					select {
					case <-release:
					case <-time.After(5 * time.Second):
					}
					c.Write(make([]byte, 990))
				})
				p := start(t, "boxes: [{stages: [{kind: ratelimit, rate: 1000/s}]}]", "http://"+addr)
				t0 := time.Now()
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(p.URL() + "/")
				ttfb := time.Since(t0)
				close(release)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || len(body) != 1000 {
					t.Fatalf("body %d bytes, %v", len(body), err)
				}
				t.Logf("head after %v, Content-Type %q", ttfb, resp.Header.Get("Content-Type"))
				if ttfb > time.Second {
					t.Errorf("the head reached the client after %v: held for the body", ttfb)
				}
				if ct == "" && resp.Header.Get("Content-Type") != "" {
					t.Errorf("Content-Type %q: the box made one up", resp.Header.Get("Content-Type"))
				}
			})
		})
	}
}
