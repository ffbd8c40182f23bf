package realtimetest

import (
	"time"

	"github.com/middlebench/middlebench/internal/procstat"
)

// Stolen is the CPU time the hypervisor has taken from this machine's CPUs
// since boot (steal in /proc/stat), or 0 where it does not say.
func Stolen() time.Duration {
	t, _ := procstat.Read("cpu")
	return t.Steal
}
