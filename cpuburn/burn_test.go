package cpuburn

import (
	"runtime"
	"testing"
	"time"
)

func TestBurnUsesThreadCPUTime(t *testing.T) {
	runtime.LockOSThread() // the thread's CPU clock: stay on one thread
	defer runtime.UnlockOSThread()
	t0, ok := ThreadTime()
	if !ok {
		t.Skip("no thread CPU clock on this system")
	}
	wall := Burn(20 * time.Millisecond)
	t1, _ := ThreadTime()
	got := t1 - t0
	t.Logf("20ms burn: %v of CPU in %v of wall time", got, wall)
	// At least what was asked; the last chunk may overshoot by tens of µs,
	// and the race detector's slower loop by more.
	if got < 20*time.Millisecond || got > 26*time.Millisecond {
		t.Errorf("burnt %v of CPU, want 20ms (+6ms at most)", got)
	}
	if wall < got-time.Millisecond {
		t.Errorf("wall time %v below CPU time %v", wall, got)
	}
	if Burn(0) != 0 || Burn(-time.Second) != 0 {
		t.Error("a non-positive burn must return at once")
	}
}
