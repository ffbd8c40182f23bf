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
	w.packet(t0)
	if !armed() {
		t.Fatalf("not armed after a packet (every %v)", warmEvery)
	}
	w.beforeWait(t0.Add(awakeFor))
	if !armed() {
		t.Fatalf("disarmed at %v after the last packet, want armed until past %v", awakeFor, awakeFor)
	}
	w.beforeWait(t0.Add(awakeFor + time.Millisecond))
	if armed() {
		t.Fatalf("still armed %v after the last packet", awakeFor+time.Millisecond)
	}
	w.packet(t0.Add(time.Second))
	if !armed() {
		t.Fatal("not armed again by the next packet")
	}
}

// An idle wire costs nothing, kept warm or not: after its readers' timers
// have stopped, its process uses no CPU tick in a second.
func TestIdleWireCostsNothing(t *testing.T) {
	w := startWire(t, Config{}, Options{KeepWarm: true})
	if w.remote == nil {
		t.Skip("the line runs in this process: its CPU is not apart")
	}
	p := newOneWayPair(t, w)
	send(t, p.wireFrom, p.wireTo)
	// Both readers' timers stop awakeFor after their last packet (a
	// condition on time itself: nothing to poll for).
	time.Sleep(awakeFor + 50*time.Millisecond)
	cpu0 := lineProcessCPU(t, w)
	time.Sleep(time.Second)
	if used := lineProcessCPU(t, w) - cpu0; used > 10*time.Millisecond {
		t.Errorf("the idle wire's process used %v of CPU in 1 s, want at most one tick (10 ms)", used)
	}
}
