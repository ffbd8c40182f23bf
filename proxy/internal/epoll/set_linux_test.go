//go:build linux

package epoll

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// refusingRawConn is a poller registration that fails every wait.
type refusingRawConn struct{ syscall.RawConn }

func (refusingRawConn) Read(func(uintptr) bool) error { return errors.New("not pollable") }

// TestRelayWaitFallsBackToBlocking: a loop whose wait in the runtime's
// poller fails blocks in epoll_wait instead, and still gets its events.
func TestRelayWaitFallsBackToBlocking(t *testing.T) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ep)
	efd, err := unix.Eventfd(1, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK) // readable at once
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(efd)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, efd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}); err != nil {
		t.Fatal(err)
	}
	s := &Set{ep: ep, epc: refusingRawConn{}, name: "test"}
	events := make([]unix.EpollEvent, 4)
	n, err := s.Wait(events)
	if err != nil || n != 1 || events[0].Fd != int32(efd) {
		t.Fatalf("wait: %d events (%v), want the eventfd's one", n, err)
	}
	if s.epc != nil {
		t.Fatal("the loop still waits in the poller that refused it")
	}
}

// TestBlockedWaitReturnsEvents: a blocked set's wait returns only events,
// whether the loop was busy a moment ago (it then waits blockedWaitMs at a
// time, yielding between) or idle (it blocks until the next event).
func TestBlockedWaitReturnsEvents(t *testing.T) {
	const after = 40 * time.Millisecond // well over blockedWaitMs
	for _, tc := range []struct {
		name   string
		active time.Duration // how long ago the set last had events
	}{
		{"busy a moment ago", time.Millisecond},
		{"idle", 2 * blockedActive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSet("test", true)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.epc = nil // blocked whatever GOMAXPROCS is
			s.active = time.Now().Add(-tc.active)
			timer := time.AfterFunc(after, func() { _ = s.Signal() })
			defer timer.Stop()
			start := time.Now()
			events := make([]unix.EpollEvent, 4)
			n, err := s.Wait(events)
			if err != nil || n != 1 || events[0].Pad != WakePad {
				t.Fatalf("wait: %d events (%v), want the wake-up's one", n, err)
			}
			if took := time.Since(start); took < after {
				t.Fatalf("wait returned after %v, before the only event (%v)", took, after)
			}
			if !s.active.After(start.Add(-time.Millisecond)) {
				t.Fatalf("the set's last events are at %v, not this wait's", s.active)
			}
		})
	}
}
