package bench

import (
	"fmt"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/internal/procstat"
)

// cpuShare is how one CPU's time went while a generator pinned to it ran:
// its own threads' (getrusage), everything's on that CPU
// (/proc/stat: so busy − ours is other processes', the serving child's
// included when it shares the CPU) and the hypervisor's steal. A generator
// that fell behind while others held its CPU was slowed by them, not by
// its work.
type cpuShare struct {
	Ours   time.Duration `json:"ours"`
	Busy   time.Duration `json:"busy"`
	Stolen time.Duration `json:"stolen"`
	Wall   time.Duration `json:"wall"`
}

// shareSample is the counters at one moment.
type shareSample struct {
	ours, busy, steal time.Duration
	at                time.Time
}

// sampleShare reads the counters of this process and of cpu.
func sampleShare(cpu int) (shareSample, bool) {
	s := shareSample{at: time.Now()}
	// The whole process's CPU, threads that have ended included.
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return s, false
	}
	s.ours = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	t, ok := procstat.Read("cpu" + strconv.Itoa(cpu))
	s.busy, s.steal = t.Busy(), t.Steal
	return s, ok
}

// shareBetween is the CPU's time from a to b.
func shareBetween(a, b shareSample) cpuShare {
	return cpuShare{Ours: b.ours - a.ours, Busy: b.busy - a.busy, Stolen: b.steal - a.steal, Wall: b.at.Sub(a.at)}
}

// percents is other processes' time on the CPU and the stolen time, in
// percent of the wall time.
func (c cpuShare) percents() (others, stolen float64) {
	if c.Wall <= 0 {
		return 0, 0
	}
	pc := func(d time.Duration) float64 { return 100 * d.Seconds() / c.Wall.Seconds() }
	return pc(max(c.Busy-c.Ours, 0)), pc(c.Stolen)
}

func (c cpuShare) String() string {
	r := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	return fmt.Sprintf("of its %s: %s its own, %s other processes', %s stolen", r(c.Wall), r(c.Ours), r(max(c.Busy-c.Ours, 0)), r(c.Stolen))
}
