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
	last  time.Time // the last packet
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

// packet notes a packet at now, and arms the timer if it was not.
func (w *warmer) packet(now time.Time) {
	w.last = now
	if w.armed {
		return
	}
	every := unix.NsecToTimespec(warmEvery.Nanoseconds())
	if unix.TimerfdSettime(w.fd, 0, &unix.ItimerSpec{Interval: every, Value: every}, nil) == nil {
		w.armed = true
	}
}

// beforeWait disarms the timer once nothing has come for awakeFor.
func (w *warmer) beforeWait(now time.Time) {
	if w.armed && now.Sub(w.last) > awakeFor {
		if unix.TimerfdSettime(w.fd, 0, &unix.ItimerSpec{}, nil) == nil {
			w.armed = false
		}
	}
}

// drain reads the expirations so that the next poll waits again.
func (w *warmer) drain() {
	var b [8]byte
	_, _ = unix.Read(w.fd, b[:])
}

func (w *warmer) close() error { return unix.Close(w.fd) }
