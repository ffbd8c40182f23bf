//go:build linux

package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// A byte box with no stage moves its bytes through the relay (one epoll
// loop): these check that it behaves as the copy goroutines it replaces —
// every byte both ways and counted, a half-close passed on after what came
// before it, a slow reader held back (not the rest dropped), a reset
// ending both sides, and nothing left open when the box closes.

// relayBox starts a path of one stage-less byte box in front of a raw TCP
// server running serve on each connection.
func relayBox(t *testing.T, start pathStarter, serve func(net.Conn)) (*Path, *Box) {
	t.Helper()
	addr := tcptest.Serve(t, serve)
	p := start(t, "boxes: [{name: plain}]", "http://"+addr)
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

func TestRelayCarries(t *testing.T) {
	const bulk = 16 << 20 // more than loopback's socket buffers hold: the relay must hold back
	var bulkWritten atomic.Int64
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
			chunk := bytes.Repeat([]byte{'x'}, 64<<10)
			for range bulk / len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return
				}
				bulkWritten.Add(int64(len(chunk)))
			}
		},
		client: func(t *testing.T, c *net.TCPConn) (sent, got int64) {
			bulkWritten.Store(0) // the origin writes nothing before the client's half-close
			up := bytes.Repeat([]byte{'u'}, 3<<20)
			if _, err := c.Write(up); err != nil {
				t.Fatal(err)
			}
			c.CloseWrite()
			// The answer fills the sockets' buffers and the relay's before the
			// client reads: the origin's writes stop.
			for deadline := time.Now().Add(10 * time.Second); bulkWritten.Load() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the origin wrote none of its answer within 10 s")
				}
			}
			waitSteady(t, "the origin's bytes written", bulkWritten.Load, 100*time.Millisecond, 10*time.Second)
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
			defer leaktest.Check(t)() // the relay's pipes too, once the box has closed
			bothWaits(t, func(t *testing.T, start pathStarter) { relayCarries(t, start, tt.serve, tt.client, tt.up, tt.down) })
		})
	}
}

func relayCarries(t *testing.T, start pathStarter, serve func(net.Conn), client func(*testing.T, *net.TCPConn) (int64, int64), up, down int64) {
	p, b := relayBox(t, start, serve)
	c := dialPath(t, p)
	sent, got := client(t, c)
	if sent != up || got != down {
		t.Fatalf("the client sent %d and got %d, want %d and %d", sent, got, up, down)
	}
	c.Close()
	if s := waitStats(t, p, func(s BoxStats) bool { return s.BytesUp == up && s.BytesDown == down }); s.BytesUp != up || s.BytesDown != down {
		t.Fatalf("the box counted %d up and %d down, want %d and %d", s.BytesUp, s.BytesDown, up, down)
	}
	b.relay.Mu.Lock()
	running, set := b.relay.Running, b.relay.Set
	b.relay.Mu.Unlock()
	if !running {
		t.Fatal("the relay never ran: the copy goroutines carried the bytes")
	}
	checkWait(t, b, set.InPoller())
}

// checkWait fails t unless box b's loop, whose set is set, waits the way
// it should: blocked in epoll_wait only when its path is its process's
// own and the process has more than one P.
func checkWait(t *testing.T, b *Box, inPoller bool) {
	t.Helper()
	if want := !b.ownProcess || runtime.GOMAXPROCS(0) == 1; inPoller != want {
		t.Errorf("the loop waits in the runtime's poller: %v, want %v (own process %v, GOMAXPROCS %d)", inPoller, want, b.ownProcess, runtime.GOMAXPROCS(0))
	}
}

// bothWaits runs f with paths (start) whose boxes' loops block in
// epoll_wait (a path that is its process's own, GOMAXPROCS 2) and wait in
// the runtime's poller (a path sharing its process; one of its own at
// GOMAXPROCS 1, as under taskset to one CPU).
func bothWaits(t *testing.T, f func(t *testing.T, start pathStarter)) {
	for _, w := range []struct {
		name  string
		procs int
		own   bool
	}{{"blocking in epoll_wait", 2, true}, {"in the poller, sharing the process", 2, false}, {"in the poller at one P", 1, true}} {
		t.Run(w.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w.procs))
			f(t, func(t testing.TB, src, upstream string) *Path {
				return startYAMLWith(t, src, upstream, func(c *PathConfig) { c.OwnProcess = w.own })
			})
		})
	}
}

// TestRelayReset: a next hop that resets its connection ends the client's
// too, at once, and the box, once closed, holds no descriptor of either.
func TestRelayReset(t *testing.T) {
	defer leaktest.Check(t)()
	bothWaits(t, func(t *testing.T, start pathStarter) {
		p, _ := relayBox(t, start, func(c net.Conn) {
			buf := make([]byte, 64)
			c.Read(buf)
			c.(*net.TCPConn).SetLinger(0) // close sends RST
			c.Close()
		})
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
	})
}

// TestRelayEndsWithTheBox: closing the box ends the connections it
// carries, and leaves no descriptor or goroutine behind.
func TestRelayEndsWithTheBox(t *testing.T) {
	defer leaktest.Check(t)()
	bothWaits(t, func(t *testing.T, start pathStarter) {
		p, _ := relayBox(t, start, func(c net.Conn) {
			// An echo that does not splice: net keeps its splice pipes for later.
			io.CopyBuffer(struct{ io.Writer }{c}, struct{ io.Reader }{c}, make([]byte, 512))
			c.Close()
		})
		conns := make([]*net.TCPConn, 20)
		for i := range conns {
			conns[i] = dialPath(t, p)
			io.WriteString(conns[i], "ping")
			buf := make([]byte, 4)
			if _, err := io.ReadFull(conns[i], buf); err != nil || string(buf) != "ping" {
				t.Fatalf("conn %d: %q, %v", i, buf, err)
			}
		}
		closeWithin(t, p, "connections in its relay")
		for i, c := range conns {
			if b, err := io.ReadAll(c); len(b) != 0 || (err != nil && !errors.Is(err, syscall.ECONNRESET)) {
				t.Fatalf("conn %d after the box closed: %q, %v", i, b, err)
			}
		}
	})
}
