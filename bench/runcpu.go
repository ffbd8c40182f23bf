package bench

import (
	"math"
	"os"
	"runtime"
	"time"
)

// A run is CPU-bound as a whole when its own processes — the generator and
// the target it drives — kept the machine's CPUs busy between them: then
// every phase measures the queue for the CPUs they share, and each
// generator's own cost per request decides the figure. E6 is the case: a
// device answers 403 at once, the server sees nothing, and a closed loop
// turns requests round as fast as two cores allow — the generator's share
// is what the device leaves it, under 90 % of the cores, yet nothing waits
// on anything but CPU. Other processes' load is not counted, so a busy
// machine never makes a run CPU-bound.

// runMeter is the CPU that this process and a target in a child have
// used since it started. The generator's own CPU is this process's when
// it is the engine; k6's is added to it (see percent).
type runMeter struct {
	t0   time.Time
	pids []int
	cpu0 time.Duration
}

// startRunMeter starts measuring this process and tgt's, when tgt runs in
// a child of its own.
func startRunMeter(tgt target) runMeter {
	m := runMeter{t0: time.Now(), pids: []int{os.Getpid()}}
	if c, ok := tgt.(*childTarget); ok && c.cmd != nil && c.cmd.Process != nil {
		m.pids = append(m.pids, c.cmd.Process.Pid)
	}
	m.cpu0, _ = m.cpu()
	return m
}

func (m runMeter) cpu() (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range m.pids {
		c, ok := procCPU(pid)
		if !ok {
			return 0, false
		}
		sum += c
	}
	return sum, true
}

// percent is the share of the machine's CPUs the run's own processes used
// since the start, with another process's CPU (k6's) added; NaN where
// /proc cannot say.
func (m runMeter) percent(other time.Duration) float64 {
	c, ok := m.cpu()
	wall := time.Since(m.t0)
	if !ok || wall <= 0 {
		return math.NaN()
	}
	return 100 * (c - m.cpu0 + other).Seconds() / wall.Seconds() / float64(runtime.NumCPU())
}
