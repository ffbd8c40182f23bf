package load

import (
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
