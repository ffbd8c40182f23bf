package bench

import (
	"bufio"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/record"
)

func readMachine(now time.Time) record.Machine {
	m := record.Machine{
		CPU:   "unknown",
		Cores: runtime.NumCPU(),
		OS:    runtime.GOOS + "/" + runtime.GOARCH,
		Go:    runtime.Version(),
		Date:  now.UTC().Format("2006-01-02 15:04 MST"),
	}
	if v := firstField("/proc/cpuinfo", "model name"); v != "" {
		m.CPU = v
	}
	if v := firstField("/proc/meminfo", "MemTotal"); v != "" {
		var kb int
		for _, r := range v {
			if r >= '0' && r <= '9' {
				kb = kb*10 + int(r-'0')
			}
		}
		m.MemoryGiB = (kb + 512*1024) / (1024 * 1024)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// firstField returns the value of the first "key : value" line of a /proc file.
func firstField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAverage is /proc/loadavg's three averages, or "not known".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "not known"
}
