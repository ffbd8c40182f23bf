package precise

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// linuxWaker blocks its (locked) OS thread in ppoll on an eventfd: the
// timeout has nanosecond resolution, and a write to the eventfd interrupts it.
type linuxWaker struct {
	efd int
	buf [8]byte
}

func newWaker() waker {
	runtime.LockOSThread() // the loop goroutine keeps this thread, and its timer slack, for life
	// 1 ns of slack: the kernel may otherwise defer our wake-up by 50 µs to batch it.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return &timerWaker{interrupts: make(chan struct{}, 1)}
	}
	return &linuxWaker{efd: efd}
}

func (w *linuxWaker) wait(d time.Duration) {
	fds := []unix.PollFd{{Fd: int32(w.efd), Events: unix.POLLIN}}
	var ts *unix.Timespec
	if d >= 0 {
		t := unix.NsecToTimespec(int64(d))
		ts = &t
	}
	n, _ := unix.Ppoll(fds, ts, nil) // EINTR: just loop again
	if n > 0 {
		_, _ = unix.Read(w.efd, w.buf[:])
	}
}

func (w *linuxWaker) interrupt() {
	one := [8]byte{1}
	_, _ = unix.Write(w.efd, one[:])
}

func (w *linuxWaker) close() { _ = unix.Close(w.efd) }
