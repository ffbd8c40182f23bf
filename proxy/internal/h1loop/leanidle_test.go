package h1loop

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// TestWaitNextIdleDeadline: the wait for a connection's next request ends
// at its own due time, whatever idle deadline an earlier request left on
// the socket: one passed early is re-armed (the connection is not closed
// before its idle time is up), and the wait ends when due with nothing.
func TestWaitNextIdleDeadline(t *testing.T) {
	// The wait gives up at its due time when nothing comes: 600 ms, timed.
	// When a byte comes the wait's due is far (10 s), so a loaded machine
	// that runs the client's timer late cannot make the byte miss it; the
	// stale deadline (20 ms) still passes first.
	const giveUp, far = 600 * time.Millisecond, 10 * time.Second
	for _, tt := range []struct {
		name      string
		armed     bool          // an earlier idle deadline is on the socket …
		stale     time.Duration // … this long from the wait's start
		byteAfter time.Duration // the client sends a byte then (0: never)
		want      bool
	}{
		{"stale deadline passes, then a byte", true, 20 * time.Millisecond, 150 * time.Millisecond, true},
		{"stale deadline passes, nothing comes", true, 20 * time.Millisecond, 0, false},
		{"stale deadline already passed, then a byte", true, -time.Second, 150 * time.Millisecond, true},
		{"not armed, nothing comes", false, 0, 0, false},
		{"not armed, a byte", false, 0, 50 * time.Millisecond, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, box := net.Pipe()
			defer client.Close()
			defer box.Close()
			lc := &leanConn{c: box}
			lc.cr.init(box)
			lc.br = bufio.NewReader(&lc.cr)
			start := time.Now()
			if tt.armed {
				box.SetReadDeadline(start.Add(tt.stale))
				lc.idleArmed = true
			}
			if tt.byteAfter > 0 {
				time.AfterFunc(tt.byteAfter, func() { client.Write([]byte("G")) })
			}
			limit := giveUp
			if tt.byteAfter > 0 {
				limit = far
			}
			got := lc.waitNext(start, limit)
			took := time.Since(start)
			t.Logf("waitNext: %v after %v", got, took)
			if got != tt.want {
				t.Fatalf("waitNext = %v, want %v", got, tt.want)
			}
			if !got && (took < limit || took > limit+time.Second) {
				t.Errorf("gave up after %v, want %v (within 1 s over)", took, limit)
			}
			if got && took < tt.byteAfter {
				t.Errorf("returned after %v, before the byte (%v)", took, tt.byteAfter)
			}
		})
	}
}
