package realtimetest

import (
	"sync"
	"time"
)

// quietWait bounds how long a round waits for a quiet moment: the
// hypervisor can take a large share of the CPUs for minutes, and a round
// waits out half a minute of it.
const quietWait = 30 * time.Second

// stealProbe is how long every CPU is kept busy to read the hypervisor's
// share: an idle guest wants no CPU, so nothing is taken from it while it
// sleeps; and /proc/stat counts steal in 10 ms ticks, so 200 ms on two CPUs
// reads 10 % as 4 ticks.
const stealProbe = 200 * time.Millisecond

// wait is what a round's wait for a quiet moment cost and found.
type wait struct {
	took   time.Duration
	quiet  bool // false: the limit came first, and the round measures anyway
	probed bool // the steal probe ran (it spins every CPU for stealProbe)
}

// stealVerdict remembers that the hypervisor was found quiet under load,
// so that the next rounds skip the probe for up to stealTrusted, or until
// a round has a value over its band: then the next round probes again. The
// probe only chooses when to measure: a disturbed round is judged (and
// measured again) as before, so skipping it forgives nothing; it costs
// every CPU 200 ms a round.
type stealVerdict struct {
	mu      sync.Mutex
	quietAt time.Time // the last probe that found the hypervisor quiet; zero: none since a disturbed round
}

// stealTrusted is how long a quiet probe is believed: the hypervisor's
// bursts here last minutes, and a round waits out half of one (quietWait).
const stealTrusted = 30 * time.Second

// trusted says whether a probe found the hypervisor quiet less than
// stealTrusted before now and no round since was disturbed.
func (v *stealVerdict) trusted(now time.Time) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return !v.quietAt.IsZero() && now.Sub(v.quietAt) < stealTrusted
}

// quiet records a probe that found the hypervisor quiet at now.
func (v *stealVerdict) quiet(now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.quietAt = now
}

// disturbed forgets the last quiet probe.
func (v *stealVerdict) disturbed() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.quietAt = time.Time{}
}

// awaitQuiet waits, up to limit, for a quiet moment: five 1 ms sleeps in a
// row each wake less than 2 ms late (a runnable process on a free CPU wakes
// within about 1 ms; a starved one waits for the CPU), and the hypervisor
// takes less than StolenShare of the CPUs while every CPU is kept busy for
// stealProbe — measured unless h.verdict says it was so at a probe less
// than stealTrusted ago and no round since was over its band. A round then starts in a quiet
// moment instead of in a burst of other work or of the host's. It chooses
// when to measure; the bands stay what they are.
func (h host) awaitQuiet(limit time.Duration) wait {
	start := time.Now()
	probed := false
	for {
		pause := 20 * time.Millisecond
		quiet := h.onTime()
		if quiet && !h.verdict.trusted(time.Now()) {
			probed = true
			if h.probe() >= StolenShare {
				quiet, pause = false, time.Second // the probe's spinning is not left to add to the host's load
			} else {
				h.verdict.quiet(time.Now())
			}
		}
		waited := time.Since(start)
		if quiet || waited >= limit {
			return wait{took: waited, quiet: quiet, probed: probed}
		}
		time.Sleep(min(pause, limit-waited))
	}
}

// wakesOnTime: five 1 ms sleeps in a row each woke less than 2 ms late.
func wakesOnTime() bool {
	for range 5 {
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		if time.Since(t0)-time.Millisecond >= 2*time.Millisecond {
			return false
		}
	}
	return true
}

// stolenUnderLoad is the share of the CPUs' time the hypervisor takes
// while one goroutine per CPU spins for stealProbe.
func (h host) stolenUnderLoad() float64 {
	s0, t0 := h.stolen(), time.Now()
	var wg sync.WaitGroup
	for range max(h.cpus, 1) {
		wg.Go(func() {
			for time.Since(t0) < stealProbe {
			}
		})
	}
	wg.Wait()
	return h.stolenSince(s0, t0)
}
