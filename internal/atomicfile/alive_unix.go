//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists (signal 0: nothing is
// sent); a process of another user counts as alive.
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
