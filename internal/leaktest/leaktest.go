// Package leaktest checks that a piece of work leaves no goroutine and no
// open file descriptor behind: what every library entry point (a server,
// a path of boxes, an engine run) must do, since a harness runs many of
// them in one process.
package leaktest

import (
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Check notes the goroutines and file descriptors open now; the returned
// func fails t unless, within 5 s, both are back to what they were.
//
//	defer leaktest.Check(t)()
func Check(t testing.TB) (verify func()) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	fds := OpenFDs(t)
	return func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		n := OpenFDs(t)
		for n > fds && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			n = OpenFDs(t)
		}
		if n > fds {
			t.Errorf("%d file descriptors open before, %d after", fds, n)
		}
		goleak.VerifyNone(t, before)
	}
}

// OpenFDs counts this process's open file descriptors (-1 where
// /proc/self/fd does not exist: the check is then goroutines only).
func OpenFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}
