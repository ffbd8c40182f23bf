package wire

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The reader's timer runs while packets flow and stops after awakeFor of
// nothing.
func TestWarmerArmsWhileFlowing(t *testing.T) {
	w := newWarmer()
	if w == nil {
		t.Skip("no timerfd here")
	}
	defer w.close()
	armed := func() bool {
		var it unix.ItimerSpec
		if err := unix.TimerfdGettime(w.fd, &it); err != nil {
			t.Fatal(err)
		}
		return it.Interval.Nano() == warmEvery.Nanoseconds() && (it.Value.Sec != 0 || it.Value.Nsec != 0)
	}
	if armed() {
		t.Fatal("armed before any packet")
	}
	t0 := time.Now()
	w.beforeWait(t0.Add(-time.Hour), t0)
	if armed() {
		t.Fatal("armed with no packet for an hour")
	}
	w.beforeWait(t0, t0)
	if !armed() {
		t.Fatalf("not armed after a packet (every %v)", warmEvery)
	}
	w.beforeWait(t0, t0.Add(awakeFor))
	if !armed() {
		t.Fatalf("disarmed at %v after the last packet, want armed until past %v", awakeFor, awakeFor)
	}
	w.beforeWait(t0, t0.Add(awakeFor+time.Millisecond))
	if armed() {
		t.Fatalf("still armed %v after the last packet", awakeFor+time.Millisecond)
	}
	w.beforeWait(t0.Add(time.Second), t0.Add(time.Second))
	if !armed() {
		t.Fatal("not armed again by the next packet")
	}
}

// An idle wire costs nothing, kept warm or not: after its readers' timers
// have stopped and its wake-up latency request is released, its process
// runs at most 5 ms in a second (the Go runtime's sysmon alone wakes about
// every 10 ms).
func TestIdleWireCostsNothing(t *testing.T) {
	w := startWire(t, Config{}, Options{KeepWarm: true})
	if w.remote == nil {
		t.Skip("the line runs in this process: its CPU is not apart")
	}
	p := newOneWayPair(t, w)
	send(t, p.wireFrom, p.wireTo)
	deadline := time.Now().Add(holdFor + 5*time.Second)
	for w.Stats().Hold.Held {
		if time.Now().After(deadline) {
			t.Fatalf("the wake-up latency request is still held 5 s after holdFor (%v)", holdFor)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The readers' timers stop awakeFor after their last packet (a
	// condition on time itself: nothing to poll for).
	time.Sleep(awakeFor + 50*time.Millisecond)
	cpu0 := lineProcessCPU(t, w)
	time.Sleep(time.Second)
	used := lineProcessCPU(t, w) - cpu0
	t.Logf("the idle wire's process ran %v in 1 s", used)
	if used > 5*time.Millisecond {
		t.Errorf("the idle wire's process ran %v in 1 s, want at most 5 ms", used)
	}
}
