// Package procstat reads a line of /proc/stat: the kernel's own count of
// where the time of one CPU, or of all of them, went.
package procstat

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Times is one line's times since boot.
type Times struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal time.Duration
}

// Busy is the time spent running anything: user, nice, system, irq and
// softirq.
func (t Times) Busy() time.Duration { return t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ }

// Read returns the line of name: "cpu" for all CPUs, "cpu0" for the first.
// It reports false where there is no such line (or no /proc/stat: not Linux).
func Read(name string) (Times, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return Times{}, false
	}
	defer f.Close()
	return parse(f, name)
}

// userHZ is the unit of /proc/stat's times (USER_HZ) on every Linux.
const userHZ = 100

func parse(r io.Reader, name string) (Times, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 9 || fs[0] != name {
			continue
		}
		var d [8]time.Duration
		for i := range d {
			n, err := strconv.ParseInt(fs[i+1], 10, 64)
			if err != nil {
				return Times{}, false
			}
			d[i] = time.Duration(n) * time.Second / userHZ
		}
		return Times{User: d[0], Nice: d[1], System: d[2], Idle: d[3], IOWait: d[4], IRQ: d[5], SoftIRQ: d[6], Steal: d[7]}, true
	}
	return Times{}, false
}
