package proxy

import (
	"net"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/middlebench/middlebench/internal/timing"
)

// TestSlowCloseHoldsTheEnd: the upstream's end of the exchange reaches the
// client the configured delay late, and the stage's ledger says so.
func TestSlowCloseHoldsTheEnd(t *testing.T) {
	tests := []struct {
		name, stage string
		held        time.Duration
		tol         time.Duration
		seen        int64
	}{
		{"fixed", "{kind: slowclose, delay: 150ms}", 150 * time.Millisecond, 15 * time.Millisecond, 1},
		{"none", "{kind: slowclose}", 0, 15 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up, got := echoUpstream(t)
			realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
				p := startYAML(t, "boxes:\n  - stages: ["+tt.stage+"]\n", up)
				start := time.Now()
				back, err := exchangeBytes(t, p.Boxes()[0].Addr(), "hello")
				took := time.Since(start)
				if err != nil || back != "hello" {
					t.Fatalf("echo %q, %v", back, err)
				}
				<-got
				r.Within("exchange until the end", took, tt.held+tt.tol, tt.tol)
				p.Close()
				s := p.Stats().Boxes[0].Stages[0]
				if s.Seen != tt.seen || s.Passed != tt.seen {
					t.Errorf("stats %+v", s)
				}
				entries := p.Ledger()
				if int64(len(entries)) != tt.seen {
					t.Fatalf("ledger %+v", entries)
				}
				for _, e := range entries {
					if e.Action != ActDelayed || e.AskedMs != timing.Millis(tt.held) {
						t.Errorf("ledger entry %+v", e)
					}
					r.Within("applied", time.Duration(e.AppliedMs*1e6), tt.held+time.Millisecond, time.Millisecond)
				}
			})
		})
	}
}

// TestSlowCloseEndsWithTheBox: closing the box lets the held closes go at
// once, so a long delay cannot hold the box (nor leak its goroutines).
func TestSlowCloseEndsWithTheBox(t *testing.T) {
	up, _ := echoUpstream(t)
	p := startYAML(t, "boxes:\n  - stages: [{kind: slowclose, delay: 1h}]\n", up)
	c, err := net.Dial("tcp", p.Boxes()[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("x"))
	c.(*net.TCPConn).CloseWrite()
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil { // the echo: the exchange is under way
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("closing the box took %v behind a 1h slowclose", took)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(buf); err == nil {
		t.Error("the connection is still open after the box closed")
	}
	if e := p.Ledger(); len(e) != 1 || e[0].AppliedMs > 5000 {
		t.Errorf("ledger %+v: want the held close, cut short", e)
	}
}
