package precise

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// linuxWaker blocks its (locked) OS thread in ppoll on an eventfd and a
// timerfd. The timerfd is armed for the next deadline: a timerfd's
// hrtimer fires at its deadline, where a ppoll timeout would be widened by
// the kernel's select slack (0.1 % of the timeout: 450 µs late on 450 ms).
// A write to the eventfd interrupts the wait.
type linuxWaker struct {
	efd, tfd int
	buf      [8]byte
}

func newWaker() waker {
	runtime.LockOSThread() // the loop goroutine keeps this thread, and its timer slack, for life
	// 1 ns of slack: the kernel may otherwise defer our wake-up by 50 µs to batch it.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return &timerWaker{interrupts: make(chan struct{}, 1)}
	}
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC|unix.TFD_NONBLOCK)
	if err != nil {
		_ = unix.Close(efd)
		return &timerWaker{interrupts: make(chan struct{}, 1)}
	}
	return &linuxWaker{efd: efd, tfd: tfd}
}

func (w *linuxWaker) wait(d time.Duration) {
	var spec unix.ItimerSpec // zero disarms: wait for an interruption only
	if d >= 0 {
		spec.Value = unix.NsecToTimespec(max(int64(d), 1))
	}
	if err := unix.TimerfdSettime(w.tfd, 0, &spec, nil); err != nil {
		time.Sleep(max(d, time.Millisecond)) // cannot happen with a valid fd; never spin
		return
	}
	fds := []unix.PollFd{{Fd: int32(w.efd), Events: unix.POLLIN}, {Fd: int32(w.tfd), Events: unix.POLLIN}}
	if _, err := unix.Ppoll(fds, nil, nil); err != nil {
		return // EINTR: the loop looks at the clock again
	}
	if fds[0].Revents&unix.POLLIN != 0 {
		_, _ = unix.Read(w.efd, w.buf[:])
	}
	if fds[1].Revents&unix.POLLIN != 0 {
		_, _ = unix.Read(w.tfd, w.buf[:])
	}
}

func (w *linuxWaker) interrupt() {
	one := [8]byte{1}
	_, _ = unix.Write(w.efd, one[:])
}

func (w *linuxWaker) close() {
	_ = unix.Close(w.efd)
	_ = unix.Close(w.tfd)
}
