//go:build linux

package epoll

import (
	"errors"
	"log"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/internal/rawio"
)

// Set is the level-triggered epoll set of one of a box's loops (the
// byte relay, the HTTP loop) with an eventfd in it that other goroutines
// signal to wake the loop. Its events carry the caller's fd and a number
// in Pad; the eventfd's Pad is WakePad.
type Set struct {
	ep   int
	wake int
	// epf is a duplicate of ep in the runtime's poller, where the loop
	// waits through epc (nil: one P is not all the process has, or the
	// set could not be put there; the loop blocks in epoll_wait).
	epf  *os.File
	epc  syscall.RawConn
	name string // for the log line of a fallback
	// The wait in the poller: its callback, made once (a closure per
	// wait would cost allocations), and what it returns through.
	pollFn     func(uintptr) bool
	pollEvents []unix.EpollEvent
	pollN      int
	pollErr    error
	// A blocked loop's last yield to the scheduler and last batch of
	// events (see waitBlocked).
	yielded, active time.Time
}

// WakePad marks the eventfd's events.
const WakePad = -1

// NewSet makes the set and its eventfd. block: the loop may block in
// epoll_wait (see Wait).
func NewSet(name string, block bool) (*Set, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake), Pad: WakePad}); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	s := &Set{ep: ep, wake: wake, name: name}
	s.pollFn = func(uintptr) bool {
		s.pollN, s.pollErr = pollNow(s.ep, s.pollEvents)
		return s.pollN > 0 || s.pollErr != nil
	}
	if !block || runtime.GOMAXPROCS(0) == 1 {
		s.epf, s.epc = pollable(ep, name)
	}
	return s, nil
}

// Signal wakes the loop (from any goroutine, so raw whatever the loop's
// way of waiting, which only the loop may read).
func (s *Set) Signal() error {
	one := [8]byte{1}
	_, err := rawio.Write(s.wake, one[:])
	if errors.Is(err, unix.EAGAIN) {
		return nil // the counter is full: the loop has a wake-up pending anyway
	}
	return err
}

// DrainWake clears the eventfd's count (the loop, on its event).
func (s *Set) DrainWake() {
	var buf [8]byte
	_, _ = s.Read(s.wake, buf[:])
}

// InPoller reports whether the loop waits in the runtime's poller (else
// it blocks in epoll_wait).
func (s *Set) InPoller() bool { return s.epc != nil }

// Close closes the set's own descriptors.
func (s *Set) Close() {
	unix.Close(s.wake)
	if s.epf != nil {
		s.epf.Close()
	}
	unix.Close(s.ep)
}

// Ctl adds, changes or removes (want 0) fd's interest, from registered
// (what it was, 0: not in the set) to want; pad travels with its events.
func (s *Set) Ctl(fd int, pad int32, registered, want uint32) error {
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

// Wait returns the set's next events (EINTR retried). It waits one of two
// ways. Blocked in epoll_wait, the loop's thread holds its P for the Go
// scheduler while it sleeps (a system call), until sysmon hands the P on
// (a wait over 10 ms; waitBlocked keeps a busy loop's waits shorter):
// cheapest when the loop is its process's only work and busy, the kernel
// waking the loop's own thread. Waiting in the runtime's poller for the set
// to become readable (a set is while it holds events), the goroutine parks
// and holds no P, and epoll_wait does not wait: what a loop must do in a
// process with other work — a harness whose load engine, server and boxes
// share its Ps, where a blocked loop left the others one P of two — and
// with one P (GOMAXPROCS 1, as under taskset to one CPU), where a blocked
// loop held the process's only P; at light load it is also the cheaper
// way. So a set blocks only when its box was made for a process of its own
// (PathConfig.OwnProcess: the proxy command) with more than one P, and then
// always: switching to the poller while the loop is mostly idle (c9327fe,
// reverted; its figures are in d6acac6) saved CPU at light load but put
// a wake-up through the runtime's poller on every request's path, adding
// to each hop's latency. What a box adds to latency is error in every
// measurement made through it; its CPU at light load is not.
func (s *Set) Wait(events []unix.EpollEvent) (int, error) {
	if s.epc == nil {
		return s.waitBlocked(events)
	}
	s.pollEvents = events
	rerr := s.epc.Read(s.pollFn)
	n, err := s.pollN, s.pollErr
	s.pollEvents = nil
	if rerr != nil {
		// The poller refused the set (it could not register it): block
		// in epoll_wait from now on, as with more Ps.
		log.Printf("%s: waiting in the runtime's poller: %v; blocking in epoll_wait instead", s.name, rerr)
		s.epc = nil
		return s.waitBlocked(events)
	}
	return n, err
}

// A blocked loop's goroutine never parks, so sysmon (Go 1.26, proc.go's
// retake) sees it on one schedtick: after 10 ms it preempts it (a signal)
// and, as it is in epoll_wait, hands its P on, and each hand-off sets
// sysmon polling every 20 µs again; a wait over 10 ms is handed on too. So
// while the loop is busy it yields every blockedYield and waits at most
// blockedWaitMs at a time, neither reaching sysmon's 10 ms; after
// blockedActive without events it blocks until the next, and an idle box
// costs no wake-ups.
const (
	blockedYield  = 3 * time.Millisecond
	blockedWaitMs = 3
	blockedActive = time.Second
)

// waitBlocked is Wait in epoll_wait (EINTR retried), never returning 0 events.
func (s *Set) waitBlocked(events []unix.EpollEvent) (int, error) {
	for {
		now := time.Now()
		if now.Sub(s.yielded) >= blockedYield {
			runtime.Gosched()
			s.yielded = now
		}
		timeout := -1
		if now.Sub(s.active) < blockedActive {
			timeout = blockedWaitMs
		}
		n, err := epollWait(s.ep, events, timeout)
		if n > 0 {
			s.active = now
		}
		if n > 0 || err != nil || timeout < 0 {
			return n, err
		}
	}
}

// Read, Write and Splice are the loops' calls on their non-blocking
// descriptors, EINTR retried. A set in the runtime's poller makes them raw
// (rawio): through the runtime's entry the first call after a park woke
// sysmon whenever the process had been idle, which cost CPU per request
// and nothing measurable in latency. A blocked set keeps the entry: raw
// there, sysmon woke and preempted more at light load, though raw was
// cheaper at saturation. (The measurements are in the commit history.)
func (s *Set) Read(fd int, b []byte) (int, error) {
	if s.epc != nil {
		return retryEINTR(func() (int, error) { return rawio.Read(fd, b) })
	}
	return retryEINTR(func() (int, error) { return unix.Read(fd, b) })
}

func (s *Set) Write(fd int, b []byte) (int, error) {
	if s.epc != nil {
		return retryEINTR(func() (int, error) { return rawio.Write(fd, b) })
	}
	return retryEINTR(func() (int, error) { return unix.Write(fd, b) })
}

func (s *Set) Splice(from, to, n int) (int, error) {
	const flags = unix.SPLICE_F_NONBLOCK | unix.SPLICE_F_MOVE
	if s.epc != nil {
		return retryEINTR(func() (int, error) { return rawio.Splice(from, to, n, flags) })
	}
	return retryEINTR(func() (int, error) {
		m, err := unix.Splice(from, nil, to, nil, n, flags)
		return int(m), err
	})
}

// retryEINTR makes call until it is not interrupted; n is never negative.
func retryEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, unix.EINTR) {
			return max(n, 0), err
		}
	}
}

// pollNow is epoll_wait with no timeout, raw (rawio): in the poller it
// runs after every park, and through the runtime's entry it woke sysmon
// each time the process had been idle.
func pollNow(ep int, events []unix.EpollEvent) (int, error) {
	return retryEINTR(func() (int, error) { return rawio.Poll(ep, events) })
}

func epollWait(ep int, events []unix.EpollEvent, msec int) (int, error) {
	return retryEINTR(func() (int, error) { return unix.EpollWait(ep, events, msec) })
}

// Loop is what a box's loops (the relay, the HTTP loop) share around
// their set: the lock over what other goroutines hand them, whether the
// loop runs or has stopped, and its end.
type Loop struct {
	Mu      sync.Mutex
	Stopped bool
	Running bool
	Set     *Set // once running
	Exited  chan struct{}
}

// Begin records a loop started on set (under mu).
func (l *Loop) Begin(set *Set) {
	l.Set, l.Running = set, true
	l.Exited = make(chan struct{})
}

// Stop marks the loop stopped, wakes it and waits for its end.
func (l *Loop) Stop() {
	l.Mu.Lock()
	l.Stopped = true
	running := l.Running
	if running {
		_ = l.Set.Signal()
	}
	l.Mu.Unlock()
	if running {
		<-l.Exited
	}
}

// WaitFailed: the loop's wait failed with err; it is stopped, and its
// caller closes its connections.
func (l *Loop) WaitFailed(name string, err error) {
	log.Printf("%s: epoll_wait: %v; its connections are closed", name, err)
	l.Mu.Lock()
	l.Stopped = true
	l.Mu.Unlock()
}
