package realtimetest

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// Stolen is the CPU time the hypervisor has taken from this machine's
// CPUs since boot (steal in /proc/stat, in USER_HZ ticks: 100 a second on
// Linux), or 0 where it does not say.
func Stolen() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line) // cpu user nice system idle iowait irq softirq steal …
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0
	}
	ticks, err := strconv.ParseInt(string(f[8]), 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
