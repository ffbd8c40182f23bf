package bench

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// A step's CPU share is interpolated between the samples around its
// bounds: 0.25 s of CPU at 0.5 s, 1 s at 1.5 s, so 75 % of one core.
func TestStepCPU(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	s := []cpuSample{{t0, 0}, {t0.Add(time.Second), 500 * time.Millisecond}, {t0.Add(2 * time.Second), 1500 * time.Millisecond}}
	u := stepCPU(s, t0.Add(500*time.Millisecond), t0.Add(1500*time.Millisecond), 1)
	if u == nil || u.Percent != 75 || u.UserSeconds != 0.75 {
		t.Errorf("step CPU %+v, want 75 %% (0.75 s of 1 s on one core)", u)
	}
	if u := stepCPU(s, t0.Add(500*time.Millisecond), t0.Add(1500*time.Millisecond), 2); u == nil || u.Percent != 37.5 {
		t.Errorf("over two cores: %+v, want 37.5 %%", u)
	}
	if u := stepCPU(s, t0.Add(time.Second), t0.Add(3*time.Second), 1); u != nil {
		t.Errorf("a step past the last sample: %+v, want none", u)
	}
}

func TestProcCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	a, ok := procCPU(os.Getpid())
	if !ok {
		t.Fatal("no CPU time read for this process")
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	if b, ok := procCPU(os.Getpid()); !ok || b < a {
		t.Errorf("CPU time %v then %v after spinning", a, b)
	}
	if _, ok := procCPU(-1); ok {
		t.Error("a CPU time for no process")
	}
}
