package precise

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pollAlarm is a timerfd read through the runtime's poller: the loop's
// goroutine parks there holding no P, and the thread that waits in epoll
// for the whole process wakes when the timerfd's hrtimer fires, to the
// nanosecond (a poll timeout would be widened by the kernel's slack, and
// the runtime's own timers wait in epoll with a millisecond timeout).
type pollAlarm struct {
	fd  int
	f   *os.File // the same fd, registered with the poller
	buf [8]byte
}

func newAlarm() alarm {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
	if err != nil {
		return newTimerAlarm()
	}
	return &pollAlarm{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
}

func (a *pollAlarm) set(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))} // 0 would disarm it
	_ = unix.TimerfdSettime(a.fd, 0, &spec, nil)                          // a valid fd and value cannot fail
}

// wait returns once the timerfd has expired since it was last set; a set
// in between replaces the expiry it waits for.
func (a *pollAlarm) wait() {
	if _, err := a.f.Read(a.buf[:]); err != nil {
		time.Sleep(time.Millisecond) // closed under it (cannot happen: only loop closes it); never spin
	}
}

func (a *pollAlarm) close() { _ = a.f.Close() }
