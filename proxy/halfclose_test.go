package proxy

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// originEnd is how a test origin ends the answer it sends to a request
// (the client never half-closes, so only the origin's end can end the
// exchange).
type originEnd struct {
	name   string
	answer string
	reset  bool // abort (RST) rather than close (FIN)
}

var originEnds = []originEnd{
	{"close-delimited answer", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe body ends with the connection", false},
	{"mid-body close", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789", false},
	{"reset", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789", true},
}

// endingOrigin serves end on every connection and sends the time of
// each close on the channel.
func endingOrigin(t *testing.T, end originEnd) (string, <-chan time.Time) {
	closed := make(chan time.Time, 16)
	addr := tcptest.Serve(t, func(c net.Conn) {
		readHead(c)
		io.WriteString(c, end.answer)
		closed <- time.Now()
		if end.reset {
			abortConn(c)
		} else {
			c.Close()
		}
	})
	return "http://" + addr, closed
}

// TestConnStagesPassTheOriginsEnd: through a byte box with each
// connection stage, the origin's close (FIN) and reset (RST) reach a
// client that never half-closes, after the bytes before them, no sooner
// than the stage's delay and within it + 10 ms; a reset stays a reset and
// is counted as an upstream fault (upstreamCuts).
func TestConnStagesPassTheOriginsEnd(t *testing.T) {
	stages := []struct {
		name, stage string
		delay       time.Duration // what the stage adds to the way down
		tls         bool
	}{
		{"no stage", "", 0, false},
		{"link", "{kind: link, latency: 30ms}", 30 * time.Millisecond, false},
		{"link down only", "{kind: link, down: 20ms}", 20 * time.Millisecond, false},
		{"bandwidth", "{kind: bandwidth, up: 1MiB/s, down: 1MiB/s}", 0, false},
		{"slowclose", "{kind: slowclose, delay: 40ms}", 40 * time.Millisecond, false},
		{"reset stage, budget left", "{kind: reset, percent: 100, after: 1MiB}", 0, false},
		{"tls", "{kind: tls}", 0, true},
		{"link then bandwidth then slowclose", "{kind: link, latency: 10ms}, {kind: bandwidth, down: 1MiB/s}, {kind: slowclose, delay: 20ms}",
			30 * time.Millisecond, false},
	}
	for _, st := range stages {
		for _, end := range originEnds {
			t.Run(st.name+"/"+end.name, func(t *testing.T) {
				up, closed := endingOrigin(t, end)
				p := startYAML(t, "boxes:\n  - stages: ["+st.stage+"]\n", up)
				realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
					got, err, at := readToEnd(t, p, st.tls)
					// A reset discards what the client had not read yet
					// (so does one straight from the origin).
					if string(got) != end.answer && (!end.reset || !strings.HasPrefix(end.answer, string(got))) {
						t.Fatalf("got %q, want %q", got, end.answer)
					}
					var tClose time.Time
					select {
					case tClose = <-closed:
					case <-time.After(5 * time.Second):
						t.Fatal("the origin never closed")
					}
					switch {
					case end.reset && !st.tls && !isReset(err):
						t.Errorf("the origin reset; the client's read ended with %v, want a reset", err)
					case end.reset && st.tls && err == nil:
						t.Errorf("the origin reset; the TLS client's read ended cleanly")
					case !end.reset && err != nil:
						t.Errorf("the origin closed; the client's read ended with %v, want EOF", err)
					}
					r.Within("origin's end to the client's", at.Sub(tClose), st.delay+5*time.Millisecond, 5*time.Millisecond)
				})
				if end.reset {
					s := waitStats(t, p, func(s BoxStats) bool { return s.UpstreamCuts > 0 })
					if s.UpstreamCuts == 0 || s.ClientAborts != 0 {
						t.Errorf("the origin reset: counters %+v, want upstreamCuts moved, no client abort", s)
					}
				}
			})
		}
	}
}

// readToEnd connects to the path's first box (with TLS when asked), sends
// a request, reads until its read ends, without ever half-closing, and
// returns what it read, how the read ended (nil: EOF) and when.
func readToEnd(t *testing.T, p *Path, withTLS bool) ([]byte, error, time.Time) {
	t.Helper()
	var c net.Conn
	var err error
	if withTLS {
		c, err = tls.Dial("tcp", p.Boxes()[0].Addr(), &tls.Config{RootCAs: p.Boxes()[0].pool, ServerName: "127.0.0.1"})
	} else {
		c, err = net.Dial("tcp", p.Boxes()[0].Addr())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: origin\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	at := time.Now()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the client was still waiting after 5 s with %d bytes", len(got))
	}
	return got, err, at
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// TestTwoBoxMidBodyCut: an HTTP box, then a byte box with a link; the
// origin announces 1000 bytes, sends 10 and closes. The client sees its
// response cut within 100 ms (it waited 60 s) and the HTTP box counts the
// cut.
func TestTwoBoxMidBodyCut(t *testing.T) {
	for _, end := range originEnds[1:] {
		t.Run(end.name, func(t *testing.T) {
			onBothLoops(t, func(t *testing.T, start pathStarter) {
				up, closed := endingOrigin(t, end)
				p := start(t, "boxes:\n  - stages: [{kind: waf}]\n  - stages: [{kind: link, latency: 5ms}]\n", up)
				client := &http.Client{Timeout: 5 * time.Second}
				resp, err := client.Get(p.URL() + "/")
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				at := time.Now()
				resp.Body.Close()
				if err == nil {
					t.Fatalf("read %d bytes and a clean end: want the response cut", len(body))
				}
				var tClose time.Time
				select {
				case tClose = <-closed:
				case <-time.After(5 * time.Second):
					t.Fatal("the origin never closed")
				}
				took := at.Sub(tClose)
				t.Logf("cut seen %v after the origin's end (%v)", took, err)
				if took > 100*time.Millisecond {
					t.Errorf("the client saw the cut %v after the origin's end, want within 100 ms", took)
				}
				s := waitStats(t, p, func(s BoxStats) bool { return s.UpstreamCuts == 1 })
				if s.UpstreamCuts != 1 {
					t.Errorf("the HTTP box's counters %+v: want upstreamCuts 1", s)
				}
			})
		})
	}
}
