package bench

import (
	"testing"
	"time"
)

// A CPU's time splits into the generator's own, other processes' (busy −
// own, never below 0: the two counters tick differently) and steal.
func TestCPUShare(t *testing.T) {
	a := shareSample{ours: time.Second, busy: 3 * time.Second, steal: 0, at: time.Unix(100, 0)}
	b := shareSample{ours: 3 * time.Second, busy: 7 * time.Second, steal: 500 * time.Millisecond, at: time.Unix(108, 0)}
	if got, want := shareBetween(a, b).String(), "of its 8.00 s: 2.00 s its own, 2.00 s other processes', 0.50 s stolen"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if o, s := shareBetween(a, b).percents(); o != 25 || s != 6.25 {
		t.Errorf("others %v %%, stolen %v %%: want 25 and 6.25 (2 s and 0.5 s of 8)", o, s)
	}
	b.busy = 4*time.Second + 990*time.Millisecond // /proc/stat's ticks lag the threads' clock
	if got, want := shareBetween(a, b).String(), "of its 8.00 s: 2.00 s its own, 0.00 s other processes', 0.50 s stolen"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if o, _ := shareBetween(a, b).percents(); o != 0 {
		t.Errorf("others %v %%, want 0", o)
	}
	// This process's own time grows while it spins; the CPU's busy time too.
	cpu := allCPUs()[0]
	restore, err := pinSelf([]int{cpu})
	if err != nil {
		t.Skip(err)
	}
	defer func() { _ = restore() }()
	s0, ok := sampleShare(cpu)
	if !ok {
		t.Skip("no getrusage or /proc/stat")
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	s1, _ := sampleShare(cpu)
	if sh := shareBetween(s0, s1); sh.Ours < 30*time.Millisecond || sh.Busy < 30*time.Millisecond {
		t.Errorf("after 100 ms of spinning on CPU %d: %+v, want at least 30 ms its own and busy", cpu, sh)
	}
}
