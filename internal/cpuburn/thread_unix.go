//go:build unix

package cpuburn

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadTime is the CPU time used by the calling OS thread; lock the
// goroutine to its thread (runtime.LockOSThread) to compare two readings.
func ThreadTime() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
