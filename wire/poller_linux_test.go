package wire

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/internal/clock"
)

// TestPollerTakesOnlyUnderTheReadersPolicy: the poller admits the packets
// queued on a ready device, and only between raising its thread to the
// readers' policy and dropping it back to SCHED_IDLE (a SCHED_IDLE thread
// holding the read lock, preempted by a loaded machine, would stop a
// real-time reader behind it); where it cannot raise itself, or the reader
// is reading, it takes nothing and leaves the packets queued.
func TestPollerTakesOnlyUnderTheReadersPolicy(t *testing.T) {
	for _, tt := range []struct {
		name      string
		canWork   bool
		rxHeld    bool
		wantTaken int
	}{
		{name: "raised", canWork: true, wantTaken: 2},
		{name: "cannot raise", canWork: false, wantTaken: 0},
		{name: "reader reading", canWork: true, rxHeld: true, wantTaken: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := clock.NewFake(time.Unix(1000, 0))
			policy := "idle"
			var wroteUnder []string
			src, idleSrc := &chanIO{fc: fc}, &chanIO{fc: fc}
			dst := sinkFunc(func(b []byte) (int, error) { wroteUnder = append(wroteUnder, policy); return len(b), nil })
			up := newLine("up", NewShaper(Link{}, 1), src, dst, 1500, fc.Now)
			down := newLine("down", NewShaper(Link{}, 2), idleSrc, dst, 1500, fc.Now)
			for _, l := range []*line{up, down} {
				l.pacer = &fakePacer{fc: fc, wake: make(chan struct{}, 1)}
			}
			p := &poller{lines: [2]*line{up, down}}
			p.work = func() bool {
				if tt.canWork {
					policy = "readers'"
				}
				return tt.canWork
			}
			p.rest = func() bool { policy = "idle"; return true }
			src.push([]byte{1})
			src.push([]byte{2})
			if tt.rxHeld {
				up.rx.Lock()
				defer up.rx.Unlock()
			}

			p.take([]unix.PollFd{{Revents: unix.POLLIN}, {}})

			if got := p.taken.Load(); got != int64(tt.wantTaken) {
				t.Errorf("taken %d, want %d", got, tt.wantTaken)
			}
			if len(wroteUnder) != tt.wantTaken {
				t.Fatalf("wrote %d packets, want %d", len(wroteUnder), tt.wantTaken)
			}
			for i, pol := range wroteUnder {
				if pol != "readers'" {
					t.Errorf("packet %d written under the %s policy", i+1, pol)
				}
			}
			if policy != "idle" {
				t.Errorf("left under the %s policy, want idle", policy)
			}
			if left := len(src.queued); left != 2-tt.wantTaken {
				t.Errorf("%d packets left queued, want %d", left, 2-tt.wantTaken)
			}
		})
	}
}

type sinkFunc func([]byte) (int, error)

func (f sinkFunc) Write(p []byte) (int, error) { return f(p) }

// TestBusyPollRunsWhileFlowingAndSleepsWhenIdle: on a real wire with
// busyPoll: true (through the line's process) the poller
// takes packets while datagrams flow with quiet moments between them, then,
// pollFor after the last, stops spinning: an idle wire's line process
// costs no CPU.
func TestBusyPollRunsWhileFlowingAndSleepsWhenIdle(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("the busy poll needs a second CPU")
	}
	w := startWire(t, Config{BusyPoll: true}, Options{})
	p := newOneWayPair(t, w)
	if !w.Stats().Process {
		t.Fatal("the line runs in the test's process: its CPU cannot be told apart")
	}
	waitFor(t, "the poller to take a packet", func() bool {
		// waitFor's pause between tries is the quiet moment before each
		// crossing: the reader is asleep in ppoll when the packet comes.
		send(t, p.wireFrom, p.wireTo)
		return w.Stats().Poll.Taken > 0
	})
	if s := w.Stats().Poll; s.Unavailable != "" {
		t.Fatalf("poll stats %s, want it available", s)
	}
	waitFor(t, "the poller to stop spinning", func() bool { return !w.Stats().Poll.Spinning })
	cpu0, t0 := lineProcessCPU(t, w), time.Now()
	time.Sleep(500 * time.Millisecond) // nothing flows: what the idle wire costs meanwhile
	if cpu, wall := lineProcessCPU(t, w)-cpu0, time.Since(t0); cpu > wall/10 {
		t.Errorf("the idle wire's line process took %v of CPU in %v, want under a tenth", cpu, wall)
	}
	// A new flow wakes it again.
	taken := w.Stats().Poll.Taken
	waitFor(t, "the poller to take a packet of a new flow", func() bool {
		send(t, p.wireFrom, p.wireTo)
		return w.Stats().Poll.Taken > taken
	})
}
