//go:build linux

package proxy

import (
	"errors"
	"log"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// eventSet is the level-triggered epoll set of one of a box's loops (the
// byte relay, the HTTP loop) with an eventfd in it that other goroutines
// signal to wake the loop. Its events carry the caller's fd and a number
// in Pad; the eventfd's Pad is wakePad.
type eventSet struct {
	ep   int
	wake int
	// epf is a duplicate of ep in the runtime's poller, where the loop
	// waits through epc (nil: one P is not all the process has, or the
	// set could not be put there; the loop blocks in epoll_wait).
	epf  *os.File
	epc  syscall.RawConn
	name string // for the log line of a fallback
}

// wakePad marks the eventfd's events.
const wakePad = -1

// newEventSet makes the set and its eventfd.
func newEventSet(name string) (*eventSet, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake), Pad: wakePad}); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	s := &eventSet{ep: ep, wake: wake, name: name}
	if runtime.GOMAXPROCS(0) == 1 {
		s.epf, s.epc = pollable(ep, name)
	}
	return s, nil
}

// signal wakes the loop (from any goroutine).
func (s *eventSet) signal() error {
	one := [8]byte{1}
	_, err := unix.Write(s.wake, one[:])
	if errors.Is(err, unix.EAGAIN) {
		return nil // the counter is full: the loop has a wake-up pending anyway
	}
	return err
}

// drainWake clears the eventfd's count (the loop, on its event).
func (s *eventSet) drainWake() {
	var buf [8]byte
	_, _ = unix.Read(s.wake, buf[:])
}

// close closes the set's own descriptors.
func (s *eventSet) close() {
	unix.Close(s.wake)
	if s.epf != nil {
		s.epf.Close()
	}
	unix.Close(s.ep)
}

// ctl adds, changes or removes (want 0) fd's interest, from registered
// (what it was, 0: not in the set) to want; pad travels with its events.
func (s *eventSet) ctl(fd int, pad int32, registered, want uint32) error {
	ev := unix.EpollEvent{Events: want, Fd: int32(fd), Pad: pad}
	switch {
	case want == registered:
		return nil
	case want == 0:
		return unix.EpollCtl(s.ep, unix.EPOLL_CTL_DEL, fd, nil)
	case registered == 0:
		return unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fd, &ev)
	}
	return unix.EpollCtl(s.ep, unix.EPOLL_CTL_MOD, fd, &ev)
}

// pollable puts the epoll set ep in the runtime's poller, through a
// non-blocking duplicate that the returned file owns (ep stays the
// caller's, closed with it); nil when it cannot.
func pollable(ep int, name string) (*os.File, syscall.RawConn) {
	if unix.SetNonblock(ep, true) != nil {
		return nil, nil
	}
	dup, err := unix.FcntlInt(uintptr(ep), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	f := os.NewFile(uintptr(dup), name+"-epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, nil
	}
	return f, rc
}

// wait returns the set's next events (EINTR retried). With one P
// (GOMAXPROCS 1, as under taskset to one CPU), a loop blocked in
// epoll_wait holds the process's only P in a system call until sysmon
// takes it away for the other goroutines, and must get it back when
// events come: the loop then waits in the runtime's poller for the set to
// become readable (a set is while it holds events), which parks only the
// goroutine, and epoll_wait does not wait. With more Ps, blocking in
// epoll_wait is cheaper: the kernel wakes the loop's own thread, not the
// runtime's poller, which must then hand the loop to a thread (wrk -c50
// through a byte box, box CPU per request, 2026-12-02 on a 2-core VM:
// unpinned 8.6-9.0 µs blocking, 12.8-16.4 in the poller; pinned to one CPU
// with the origin 12.1-13.0 blocking, 8.2-8.6 in the poller; toxiproxy
// 12.7-17.2 and 12.5-13.1).
func (s *eventSet) wait(events []unix.EpollEvent) (int, error) {
	if s.epc == nil {
		return epollWait(s.ep, events, -1)
	}
	var n int
	var err error
	rerr := s.epc.Read(func(uintptr) bool {
		n, err = epollWait(s.ep, events, 0)
		return n > 0 || err != nil
	})
	if rerr != nil {
		// The poller refused the set (it could not register it): block
		// in epoll_wait from now on, as with more Ps.
		log.Printf("%s: waiting in the runtime's poller: %v; blocking in epoll_wait instead", s.name, rerr)
		s.epc = nil
		return epollWait(s.ep, events, -1)
	}
	return n, err
}

func epollWait(ep int, events []unix.EpollEvent, msec int) (int, error) {
	for {
		n, err := unix.EpollWait(ep, events, msec)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}
