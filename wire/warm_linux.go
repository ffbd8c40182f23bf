package wire

import (
	"time"

	"golang.org/x/sys/unix"
)

// A reader that has slept a few milliseconds wakes cold: on a small guest
// shared with other work, its wake-up path (ppoll's return, the runtime's
// exit from the system call, the TUN read) and what follows have gone out
// of the caches. So, with Options.KeepWarm, while packets flow the reader
// is woken every warmEvery to poll its device once, which keeps that path
// warm; after awakeFor of nothing the timer is disarmed, and an idle wire
// costs nothing.

// warmEvery is how often a reader with a flow through it wakes to poll.
const warmEvery = 250 * time.Microsecond

// awakeFor is how long after its last packet a reader keeps waking: a
// flow's quiet moments (a server's work, a think time) are shorter.
const awakeFor = 250 * time.Millisecond

// warmer is a reader's periodic timer (a timerfd), armed while packets
// flow. Only its reader's thread uses it.
type warmer struct {
	fd    int
	armed bool
}

// newWarmer makes the timer, or returns nil where it cannot (the reader
// then only sleeps).
func newWarmer() *warmer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &warmer{fd: fd}
}

// beforeWait arms the timer when a packet has come within awakeFor, and
// disarms it once nothing has.
func (w *warmer) beforeWait(last, now time.Time) {
	flowing := now.Sub(last) <= awakeFor
	if flowing == w.armed {
		return
	}
	var spec unix.ItimerSpec
	if flowing {
		every := unix.NsecToTimespec(warmEvery.Nanoseconds())
		spec = unix.ItimerSpec{Interval: every, Value: every}
	}
	if unix.TimerfdSettime(w.fd, 0, &spec, nil) == nil {
		w.armed = flowing
	}
}

// drain reads the expirations so that the next poll waits again.
func (w *warmer) drain() {
	var b [8]byte
	_, _ = unix.Read(w.fd, b[:])
}

func (w *warmer) close() error { return unix.Close(w.fd) }
