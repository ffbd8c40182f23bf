//go:build linux

package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// A byte box with no stage moves its bytes through the relay (one epoll
// loop): these check that it behaves as the copy goroutines it replaces —
// every byte both ways and counted, a half-close passed on after what came
// before it, a slow reader held back (not the rest dropped), a reset
// ending both sides, and nothing left open when the box closes.

// openFDs counts the process's open descriptors but pipes: net keeps a
// pool of pipes for splice(2) (the test servers' io.Copy between sockets).
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); !strings.HasPrefix(l, "pipe:") {
			n++
		}
	}
	return n
}

// relayBox starts a path of one stage-less byte box in front of a raw TCP
// server running serve on each connection.
func relayBox(t *testing.T, serve func(net.Conn)) (*Path, *Box) {
	t.Helper()
	addr := tcptest.Serve(t, serve)
	p := startYAML(t, "boxes: [{name: plain}]", "http://"+addr)
	b := p.Boxes()[0]
	if b.Mode() != ModeBytes {
		t.Fatalf("mode %s, want bytes", b.Mode())
	}
	return p, b
}

func dialPath(t *testing.T, p *Path) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c.(*net.TCPConn)
}

// waitFor polls cond every 10 ms for 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRelayCarries(t *testing.T) {
	const bulk = 16 << 20 // more than loopback's socket buffers hold: the relay must hold back
	for _, tt := range []struct {
		name     string
		serve    func(net.Conn)
		client   func(t *testing.T, c *net.TCPConn) (sent, got int64)
		up, down int64 // bytes the box must count each way
	}{{
		name: "a hundred requests and answers on one connection",
		serve: func(c net.Conn) {
			defer c.Close()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				fmt.Fprintf(c, "answer to %s", line)
			}
		},
		client: func(t *testing.T, c *net.TCPConn) (sent, got int64) {
			r := bufio.NewReader(c)
			for i := range 100 {
				q := fmt.Sprintf("question %d\n", i)
				io.WriteString(c, q)
				a, err := r.ReadString('\n')
				if err != nil || a != "answer to "+q {
					t.Fatalf("answer %d: %q, %v", i, a, err)
				}
				sent, got = sent+int64(len(q)), got+int64(len(a))
			}
			return sent, got
		},
		up:   int64(100*len("question NN\n") - 10), // ten one-digit numbers
		down: int64(100*len("answer to question NN\n") - 10),
	}, {
		name: "an upload's end passed on, then a bulk answer to a slow reader",
		serve: func(c net.Conn) {
			defer c.Close()
			n, _ := io.Copy(io.Discard, c) // until the client's half-close comes through
			fmt.Fprintf(c, "%d\n", n)
			c.Write(bytes.Repeat([]byte{'x'}, bulk))
		},
		client: func(t *testing.T, c *net.TCPConn) (sent, got int64) {
			up := bytes.Repeat([]byte{'u'}, 3<<20)
			if _, err := c.Write(up); err != nil {
				t.Fatal(err)
			}
			c.CloseWrite()
			time.Sleep(300 * time.Millisecond) // the answer fills the sockets' buffers meanwhile
			b, err := io.ReadAll(c)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%d\n", len(up))
			if !bytes.HasPrefix(b, []byte(want)) || len(b) != len(want)+bulk || bytes.Count(b[len(want):], []byte{'x'}) != bulk {
				t.Fatalf("got %d bytes starting %q, want %q and %d x", len(b), b[:min(len(b), 12)], want, bulk)
			}
			return int64(len(up)), int64(len(b))
		},
		up:   3 << 20,
		down: int64(len("3145728\n")) + bulk,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p, b := relayBox(t, tt.serve)
			c := dialPath(t, p)
			sent, got := tt.client(t, c)
			if sent != tt.up || got != tt.down {
				t.Fatalf("the client sent %d and got %d, want %d and %d", sent, got, tt.up, tt.down)
			}
			c.Close()
			waitFor(t, "the box counts every byte", func() bool {
				s := b.Stats()
				return s.BytesUp == tt.up && s.BytesDown == tt.down
			})
			b.relay.mu.Lock()
			running := b.relay.running
			b.relay.mu.Unlock()
			if !running {
				t.Fatal("the relay never ran: the copy goroutines carried the bytes")
			}
		})
	}
}

// TestRelayReset: a next hop that resets its connection ends the client's
// too, at once, and the box holds no descriptor of either.
func TestRelayReset(t *testing.T) {
	p, _ := relayBox(t, func(c net.Conn) {
		buf := make([]byte, 64)
		c.Read(buf)
		c.(*net.TCPConn).SetLinger(0) // close sends RST
		c.Close()
	})
	before := openFDs(t)
	c := dialPath(t, p)
	io.WriteString(c, "hello\n")
	t0 := time.Now()
	b, err := io.ReadAll(c)
	if len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
		t.Fatalf("read %q, %v: want the connection ended", b, err)
	}
	if took := time.Since(t0); took > 2*time.Second {
		t.Fatalf("the client's connection ended %v after the reset", took)
	}
	c.Close()
	// +2: the relay's epoll set and eventfd, made with its first pair, kept until the box closes.
	waitFor(t, fmt.Sprintf("descriptors back to %d (now %d)", before+2, openFDs(t)), func() bool { return openFDs(t) <= before+2 })
}

// TestRelayEndsWithTheBox: closing the box ends the connections it
// carries, and leaves no descriptor open.
func TestRelayEndsWithTheBox(t *testing.T) {
	before := openFDs(t)
	p, _ := relayBox(t, func(c net.Conn) { io.Copy(c, c); c.Close() })
	conns := make([]*net.TCPConn, 20)
	for i := range conns {
		conns[i] = dialPath(t, p)
		io.WriteString(conns[i], "ping")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(conns[i], buf); err != nil || string(buf) != "ping" {
			t.Fatalf("conn %d: %q, %v", i, buf, err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the box did not close in 5 s with connections in its relay")
	}
	for i, c := range conns {
		if b, err := io.ReadAll(c); len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
			t.Fatalf("conn %d after the box closed: %q, %v", i, b, err)
		}
		c.Close()
	}
	// The test server's own connections end with their clients' (echo).
	waitFor(t, fmt.Sprintf("descriptors back to %d (now %d)", before+1, openFDs(t)), func() bool { return openFDs(t) <= before+1 }) // +1: the test server's listener
}
