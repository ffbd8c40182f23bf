package bench

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

// k6's CPU over time, for its steps: the engine samples its own CPU at
// each step's end; k6 says nothing of its CPU, so its process's counters
// are read from /proc every k6CPUEvery while it runs, and each step's
// share is interpolated between the samples around its bounds. Off Linux
// (no /proc) there are no samples and k6's steps have no CPU.

const k6CPUEvery = 100 * time.Millisecond

// cpuSample is a process's CPU time (user + system, every thread's, the
// ended ones' too) at a moment.
type cpuSample struct {
	at  time.Time
	cpu time.Duration
}

// procCPU reads pid's own CPU time (utime and stime) from /proc/PID/stat.
func procCPU(pid int) (time.Duration, bool) {
	own, _, ok := procTimes(pid)
	return own, ok
}

// procTimes reads /proc/PID/stat: the process's own CPU (utime + stime)
// and that of its children it has waited for (cutime + cstime), from
// USER_HZ ticks.
func procTimes(pid int) (own, reaped time.Duration, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command may hold spaces and parentheses: fields count from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 15 { // state is field 3; utime, stime, cutime, cstime are 14–17
		return 0, 0, false
	}
	var ticks [4]int64
	for k, x := range f[11:15] {
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			return 0, 0, false
		}
		ticks[k] = n
	}
	const hz = 100
	return time.Duration(ticks[0]+ticks[1]) * time.Second / hz, time.Duration(ticks[2]+ticks[3]) * time.Second / hz, true
}

// sampleCPU samples pid's CPU every k6CPUEvery until ctx ends, and sends
// the samples on out.
func sampleCPU(ctx context.Context, pid int, out chan<- []cpuSample) {
	var s []cpuSample
	tk := time.NewTicker(k6CPUEvery)
	defer tk.Stop()
	for {
		if c, ok := procCPU(pid); ok {
			s = append(s, cpuSample{time.Now(), c})
		}
		select {
		case <-ctx.Done():
			out <- s
			return
		case <-tk.C:
		}
	}
}

// cpuAt is the CPU time at t, interpolated between the samples around it;
// false outside them.
func cpuAt(s []cpuSample, t time.Time) (time.Duration, bool) {
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		if t.Before(a.at) || t.After(b.at) {
			continue
		}
		span := b.at.Sub(a.at)
		if span <= 0 {
			return a.cpu, true
		}
		return a.cpu + time.Duration(float64(b.cpu-a.cpu)*float64(t.Sub(a.at))/float64(span)), true
	}
	return 0, false
}

// stepCPU is the CPU share of [from, to) from the samples, over cores;
// nil where the samples do not cover it.
func stepCPU(s []cpuSample, from, to time.Time, cores int) *metrics.CPUUsage {
	a, ok1 := cpuAt(s, from)
	b, ok2 := cpuAt(s, to)
	wall := to.Sub(from).Seconds()
	if !ok1 || !ok2 || wall <= 0 || cores <= 0 {
		return nil
	}
	// The samples do not tell user from system: all of it is counted as user.
	u := &metrics.CPUUsage{UserSeconds: (b - a).Seconds(), Cores: cores}
	u.Percent = 100 * u.UserSeconds / wall / float64(cores)
	return u
}
