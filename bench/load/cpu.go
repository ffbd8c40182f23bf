package load

import (
	"runtime"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

// rusage is the process's CPU time so far.
type rusage struct {
	user, sys time.Duration
	at        time.Time
}

// cpuBetween is the generator's CPU use from a to b, as the Document says it.
func cpuBetween(a, b rusage) *metrics.CPUUsage {
	u := &metrics.CPUUsage{UserSeconds: (b.user - a.user).Seconds(), SystemSeconds: (b.sys - a.sys).Seconds(), Cores: cpuCores()}
	if wall := b.at.Sub(a.at).Seconds(); wall > 0 {
		u.Percent = 100 * (u.UserSeconds + u.SystemSeconds) / (wall * float64(u.Cores))
	}
	return u
}

// burner burns CPU for a given CPU time (clientCPU): a fixed amount of
// work calibrated against the thread's CPU clock when the run starts, so a
// busy generator takes longer to do it, as a script's busy loop would.
type burner struct{ perMs uint64 } // work units per millisecond of CPU

// burnUnits does n units of work; state keeps the compiler from dropping it.
func burnUnits(n uint64, state *uint64) {
	x := *state | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	*state = x
}

// calibrateBurner measures how many units one millisecond of this thread's
// CPU does; the fastest of a few rounds, so a round slowed by another
// process does not shrink the burn.
func calibrateBurner() burner {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var state uint64 = 88172645463325252
	const units = 1 << 20
	best := time.Duration(0)
	for range 7 {
		t0 := threadCPU()
		burnUnits(units, &state)
		d := threadCPU() - t0
		if d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	if best <= 0 {
		return burner{perMs: 1 << 20}
	}
	return burner{perMs: max(1, uint64(float64(units)*float64(time.Millisecond)/float64(best)))}
}

func (b burner) burn(d time.Duration, state *uint64) {
	burnUnits(uint64(float64(b.perMs)*float64(d)/float64(time.Millisecond)), state)
}
