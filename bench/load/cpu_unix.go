//go:build unix

package load

import (
	"syscall"
	"time"
)

func readRusage() rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail with RUSAGE_SELF and a valid pointer
	return rusage{user: time.Duration(ru.Utime.Nano()), sys: time.Duration(ru.Stime.Nano()), at: time.Now()}
}
