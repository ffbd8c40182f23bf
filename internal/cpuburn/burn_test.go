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

// TestSpinMillisEndsOnTheClocksTick: the spin lasts until the millisecond
// count has moved on by n, so more than n−1 ms, and not past that tick.
func TestSpinMillisEndsOnTheClocksTick(t *testing.T) {
	for _, n := range []int64{1, 3, 10} {
		t0 := time.Now()
		SpinMillis(n)
		t1 := time.Now()
		if got := t1.UnixMilli() - t0.UnixMilli(); got < n {
			t.Errorf("SpinMillis(%d): the ms clock moved on by %d", n, got)
		}
		if el := t1.Sub(t0); el <= time.Duration(n-1)*time.Millisecond {
			t.Errorf("SpinMillis(%d) took %s, want more than %d ms", n, el, n-1)
		}
	}
}
