package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// echoUpstream echoes what it reads until EOF and reports, per
// connection, the bytes it received.
func echoUpstream(t *testing.T) (string, <-chan string) {
	t.Helper()
	got := make(chan string, 100)
	addr := tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		var sb strings.Builder
		buf := make([]byte, 1024)
		for {
			n, err := c.Read(buf)
			sb.Write(buf[:n])
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		got <- sb.String()
	})
	return "http://" + addr, got
}

// exchangeBytes sends msg on a new connection to addr, half-closes, and
// reads until the end; it returns what came back and how the exchange
// ended (a reset at the first byte can reach the client while it is still
// connecting).
func exchangeBytes(t *testing.T, addr, msg string) (string, error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		return "", err
	}
	c.(*net.TCPConn).CloseWrite()
	back, err := io.ReadAll(c)
	return string(back), err
}

// TestResetAfterBytes: a reset connection passes exactly its budget, up
// and down together, then the client's read fails and the upstream's
// connection ends.
func TestResetAfterBytes(t *testing.T) {
	const msg = "hello world" // 11 bytes up, then 11 echoed down
	tests := []struct {
		name, stage  string
		upstreamGot  string // what the upstream receives
		resets       int64
		ledgerBytes  int64 // bytes the reset connection passed
		echoComplete bool
	}{
		{"before any byte", "{kind: reset, percent: 100, after: 0}", "", 1, 0, false},
		{"mid-request", "{kind: reset, percent: 100, after: 5}", "hello", 1, 5, false},
		{"mid-response", "{kind: reset, percent: 100, after: 16}", msg, 1, 16, false},
		{"budget not reached", "{kind: reset, percent: 100, after: 1KiB}", msg, 0, 0, true},
		{"none chosen", "{kind: reset, percent: 0}", msg, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up, got := echoUpstream(t)
			p := startYAML(t, "boxes:\n  - stages: ["+tt.stage+"]\n", up)
			back, err := exchangeBytes(t, p.Boxes()[0].Addr(), msg)
			if tt.echoComplete && (err != nil || back != msg) {
				t.Errorf("echo %q, %v; want %q", back, err, msg)
			}
			if !tt.echoComplete && err == nil && back == msg {
				t.Errorf("the whole echo came back: no reset")
			}
			select {
			case g := <-got:
				if g != tt.upstreamGot {
					t.Errorf("upstream received %q, want %q", g, tt.upstreamGot)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the upstream's connection did not end")
			}
			p.Close() // closes the connections: every one is counted
			s := p.Stats().Boxes[0].Stages[0]
			if s.Seen != 1 || s.Extra["resets"] != tt.resets || s.Rejected["reset"] != tt.resets || s.Passed != 1-tt.resets {
				t.Errorf("stats %+v", s)
			}
			var entries []LedgerEntry
			for _, e := range p.Ledger() {
				if e.Action == ActReset {
					entries = append(entries, e)
				}
			}
			if int64(len(entries)) != tt.resets || (tt.resets == 1 && entries[0].Bytes != tt.ledgerBytes) {
				t.Errorf("ledger %+v, want %d reset after %d bytes", entries, tt.resets, tt.ledgerBytes)
			}
		})
	}
}

// TestResetIsSeeded: which connections are reset follows the seed: the
// same seed picks the same ones, another seed others.
func TestResetIsSeeded(t *testing.T) {
	up, got := echoUpstream(t)
	chosen := func(seed uint64) []uint64 {
		src := fmt.Sprintf("seed: %d\nboxes:\n  - stages: [{kind: reset, percent: 50}]\n", seed)
		p := startYAML(t, src, up)
		for range 40 { // one after another: connection i is the box's id i
			exchangeBytes(t, p.Boxes()[0].Addr(), "x")
			<-got
		}
		p.Close()
		var ids []uint64
		for _, e := range p.Ledger() {
			ids = append(ids, e.Conn)
		}
		slices.Sort(ids)
		return ids
	}
	a, b, other := chosen(7), chosen(7), chosen(8)
	t.Logf("seed 7 resets %d of 40: %v; seed 8: %v", len(a), a, other)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 reset %v, then %v", a, b)
	}
	if slices.Equal(a, other) {
		t.Errorf("seeds 7 and 8 reset the same connections %v", a)
	}
	if len(a) < 10 || len(a) > 30 {
		t.Errorf("50 %% of 40 connections reset %d", len(a))
	}
}

// TestResetBeforeHTTP: in a box that parses HTTP, a connection reset
// before its first byte fails the request.
func TestResetBeforeHTTP(t *testing.T) {
	p := startYAML(t, "boxes:\n  - stages: [{kind: reset, percent: 100}, {kind: waf}]\n", origin(t).URL)
	c := &http.Client{Timeout: 5 * time.Second}
	if resp, err := c.Get(p.URL()); err == nil {
		resp.Body.Close()
		t.Fatalf("status %d through a reset", resp.StatusCode)
	}
	if s := p.Stats().Boxes[0].Stages[0]; s.Extra["resets"] == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestResetConfigErrors(t *testing.T) {
	for _, tt := range []struct{ stage, want string }{
		{"reset:percent=150", "percent"},
		{"reset:percent=-1", "percent"},
		{"reset:after=lots", "after"},
		{"reset:afterr=1KiB", `did you mean "after"`},
	} {
		if _, err := ParseStage(tt.stage); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming %s", tt.stage, err, tt.want)
		}
	}
}
