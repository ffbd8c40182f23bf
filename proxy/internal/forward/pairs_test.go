//go:build linux

package forward

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/relay"
)

// stageConn stands for a connection a stage wrapped: not a *net.TCPConn,
// so the relay refuses its pair and the copy goroutines carry it.
type stageConn struct{ *net.TCPConn }

// recordEnds passes the ends on to the socket, as the box's stages do,
// and records on which side each came.
type recordEnds struct {
	mu                 sync.Mutex
	closeWrites, abort []string
	names              map[net.Conn]string
}

func (e *recordEnds) CloseWrite(c net.Conn) {
	e.mu.Lock()
	e.closeWrites = append(e.closeWrites, e.names[c])
	e.mu.Unlock()
	tcp(c).CloseWrite()
}

func (e *recordEnds) Abort(c net.Conn) {
	e.mu.Lock()
	e.abort = append(e.abort, e.names[c])
	e.mu.Unlock()
	tcp(c).SetLinger(0)
	c.Close()
}

func tcp(c net.Conn) *net.TCPConn {
	if s, ok := c.(stageConn); ok {
		return s.TCPConn
	}
	return c.(*net.TCPConn)
}

// loopbackPair is both ends of one TCP connection on 127.0.0.1.
func loopbackPair(t *testing.T) (dialed, accepted *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []net.Conn{c, s} {
		x.SetDeadline(time.Now().Add(10 * time.Second))
		t.Cleanup(func() { x.Close() })
	}
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

// TestCarry: each way's bytes arrive whole and are counted, its end is
// passed on (through Ends on the copy goroutines), and a next hop's reset
// is reported once and reaches the client as a reset.
func TestCarry(t *testing.T) {
	for _, tc := range []struct {
		name      string
		wrapped   bool // the client's connection is a stage's: the copy goroutines carry it
		reset     bool // the next hop resets after reading the request
		up, down  int64
		closes    []string // Ends.CloseWrite's sides, in any order
		aborts    []string
		nextHopRs int
	}{
		{name: "relay, both ways ended", up: 4, down: 5},
		{name: "copy goroutines, both ways ended", wrapped: true, up: 4, down: 5, closes: []string{"client", "up"}},
		{name: "copy goroutines, the next hop resets", wrapped: true, reset: true, up: 4, aborts: []string{"client"}, nextHopRs: 1},
		{name: "relay, the next hop resets", reset: true, up: 4, nextHopRs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clientApp, clientBox := loopbackPair(t)
			upBox, upApp := loopbackPair(t)
			var c net.Conn = clientBox
			if tc.wrapped {
				c = stageConn{clientBox}
			}
			var up, down atomic.Int64
			r := relay.New(&up, &down, false)
			defer r.Stop()
			ends := &recordEnds{names: map[net.Conn]string{c: "client", upBox: "up"}}
			p := &Pairs{Relay: r, Up: &up, Down: &down, Ends: ends}
			var resets atomic.Int64
			carried := make(chan struct{})
			go func() {
				p.Carry(c, c, upBox, func(error) { resets.Add(1) })
				close(carried)
			}()

			clientApp.Write([]byte("ping"))
			clientApp.CloseWrite()
			got, err := io.ReadAll(upApp)
			if string(got) != "ping" || err != nil {
				t.Fatalf("the next hop read %q, %v; want ping and the client's end", got, err)
			}
			if tc.reset {
				upApp.SetLinger(0)
				upApp.Close()
			} else {
				upApp.Write([]byte("pong!"))
				upApp.CloseWrite()
			}
			got, err = io.ReadAll(clientApp)
			switch {
			case tc.reset && (len(got) != 0 || !errors.Is(err, syscall.ECONNRESET)):
				t.Fatalf("the client read %q, %v; want the next hop's reset passed on", got, err)
			case !tc.reset && (string(got) != "pong!" || err != nil):
				t.Fatalf("the client read %q, %v; want pong! and the next hop's end", got, err)
			}
			select {
			case <-carried:
			case <-time.After(10 * time.Second):
				t.Fatal("Carry did not return within 10 s of both ways ending")
			}
			r.Mu.Lock()
			relayed := r.Running
			r.Mu.Unlock()
			if relayed == tc.wrapped {
				t.Errorf("the relay ran: %v; want %v (a stage's connection is the copy goroutines')", relayed, !tc.wrapped)
			}
			if up.Load() != tc.up || down.Load() != tc.down {
				t.Errorf("counted %d up, %d down; want %d and %d", up.Load(), down.Load(), tc.up, tc.down)
			}
			if n := resets.Load(); n != int64(tc.nextHopRs) {
				t.Errorf("next hop resets reported %d times, want %d", n, tc.nextHopRs)
			}
			ends.mu.Lock()
			defer ends.mu.Unlock()
			if !tc.reset && !sameSet(ends.closeWrites, tc.closes) {
				t.Errorf("half-closes passed through Ends on %v, want %v", ends.closeWrites, tc.closes)
			}
			if !sameSet(ends.abort, tc.aborts) {
				t.Errorf("resets passed through Ends on %v, want %v", ends.abort, tc.aborts)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	for _, x := range b {
		count[x]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
