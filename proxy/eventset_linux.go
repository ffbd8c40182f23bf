//go:build linux

package proxy

import (
	"errors"
	"log"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

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
	// waits through epc (nil: the loop blocks in epoll_wait, as a busy
	// loop of a set that may block does, or as any does when the poller
	// would not take the set).
	epf  *os.File
	epc  syscall.RawConn
	name string // for the log line of a fallback
	// block: the set may also block in epoll_wait, and does while its
	// loop is busy (gauge), out of the poller; pollRefused: the poller
	// would not take it.
	block       bool
	pollRefused bool
	gauge       waitGauge
	waitEnd     time.Time // when the last wait returned
	// The wait in the poller: its callback, made once (a closure per
	// wait would cost allocations), and what it returns through.
	pollFn     func(uintptr) bool
	pollEvents []unix.EpollEvent
	pollN      int
	pollErr    error
}

// wakePad marks the eventfd's events.
const wakePad = -1

// newEventSet makes the set and its eventfd. block: the loop may block in
// epoll_wait (see wait).
func newEventSet(name string, block bool) (*eventSet, error) {
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
	s.pollFn = func(uintptr) bool {
		s.pollN, s.pollErr = epollWait(s.ep, s.pollEvents, 0)
		return s.pollN > 0 || s.pollErr != nil
	}
	if s.block = block && runtime.GOMAXPROCS(0) > 1; !s.block {
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

// wait returns the set's next events (EINTR retried). It waits one of two
// ways. In the runtime's poller (the set is readable while it holds
// events), the goroutine parks and holds no P: how a loop must wait in a
// process with other work — a harness whose load engine, server and boxes
// share its Ps, where a blocked loop left the others one P of two
// (through an HTTP box at one connection in a test's process: 570 ms for
// 8,000 requests blocked, 117 in the poller) — and with one P (GOMAXPROCS
// 1, as under taskset to one CPU: bench-proxy.sh PIN_TARGET=1, 3 rounds,
// 2026-12-03, blocked the HTTP box read 0.88-0.90× toxiproxy's req/s at
// 1.13× its CPU per request, in the poller 1.60-1.73× at 0.62×). Blocked
// in epoll_wait, the loop's thread keeps its P while it sleeps and the
// kernel wakes that thread itself: cheaper while the loop is busy, dearer
// while it is mostly idle. So a set that may block (PathConfig.OwnProcess,
// the proxy command, with more than one P) waits as its gauge says, from
// the share of its time it waits, and is in the poller only while it
// waits there (follow). The HTTP box under the proxy command, origin on
// CPU 1 and generator on CPU 0, 4 rounds each, 2026-12-03 13:15-13:23
// UTC, CPU per request: under wrk -c50 blocked 15.3-17.7 µs, as the gauge
// says 14.5-18.5, in the poller 20.0-29.7, toxiproxy 25.6-29.9; under hey
// at 2,000 req/s blocked 60-64, as the gauge says 36-39, in the poller
// 34-41, toxiproxy 45-56; at 10,000 req/s all three 26-33.
func (s *eventSet) wait(events []unix.EpollEvent) (int, error) {
	if !s.block {
		return s.waitOnce(events)
	}
	start := time.Now()
	n, err := s.waitOnce(events)
	end := time.Now()
	var worked time.Duration
	if !s.waitEnd.IsZero() {
		worked = start.Sub(s.waitEnd)
	}
	s.waitEnd = end
	if polling := s.gauge.note(worked, end.Sub(start)); polling != (s.epf != nil) && !s.pollRefused {
		s.follow(polling)
	}
	return n, err
}

// waitOnce waits in the poller when the set is in it, else in epoll_wait.
func (s *eventSet) waitOnce(events []unix.EpollEvent) (int, error) {
	if s.epc == nil {
		return epollWait(s.ep, events, -1)
	}
	return s.waitInPoller(events)
}

// follow puts the set in the runtime's poller or takes it out. Out of it
// while blocking, because a set in the poller wakes the runtime's netpoll
// at every event though no goroutine waits there (blocking with the set
// left in: 26.9-39.8 µs per request, against 14.2-19.4 taken out).
func (s *eventSet) follow(polling bool) {
	if !polling {
		s.epf.Close()
		s.epf, s.epc = nil, nil
		return
	}
	if s.epf, s.epc = pollable(s.ep, s.name); s.epf == nil {
		s.pollRefused = true
	}
}

// waitInPoller parks the loop's goroutine until the set holds events.
func (s *eventSet) waitInPoller(events []unix.EpollEvent) (int, error) {
	s.pollEvents = events
	rerr := s.epc.Read(s.pollFn)
	n, err := s.pollN, s.pollErr
	s.pollEvents = nil
	if rerr != nil {
		// The poller refused the set (it could not register it): block
		// in epoll_wait from now on, as with more Ps.
		log.Printf("%s: waiting in the runtime's poller: %v; blocking in epoll_wait instead", s.name, rerr)
		s.epc, s.pollRefused = nil, true
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

// loopRun is what a box's loops (the relay, the HTTP loop) share around
// their set: the lock over what other goroutines hand them, whether the
// loop runs or has stopped, and its end.
type loopRun struct {
	mu      sync.Mutex
	stopped bool
	running bool
	set     *eventSet // once running
	exited  chan struct{}
}

// begin records a loop started on set (under mu).
func (l *loopRun) begin(set *eventSet) {
	l.set, l.running = set, true
	l.exited = make(chan struct{})
}

// stop marks the loop stopped, wakes it and waits for its end.
func (l *loopRun) stop() {
	l.mu.Lock()
	l.stopped = true
	running := l.running
	if running {
		_ = l.set.signal()
	}
	l.mu.Unlock()
	if running {
		<-l.exited
	}
}

// waitFailed: the loop's wait failed with err; it is stopped, and its
// caller closes its connections.
func (l *loopRun) waitFailed(name string, err error) {
	log.Printf("%s: epoll_wait: %v; its connections are closed", name, err)
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
}
