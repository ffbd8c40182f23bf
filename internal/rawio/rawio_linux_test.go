package rawio

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// pair returns a connected non-blocking socket pair, closed at the end.
func pair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

func TestReadWrite(t *testing.T) {
	a, b := pair(t)
	buf := make([]byte, 16)
	if n, err := Read(b, buf); n != 0 || !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("read of an empty socket: %d, %v; want 0, EAGAIN", n, err)
	}
	if n, err := Write(a, []byte("hello")); n != 5 || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	if n, err := Peek(b, buf[:2]); n != 2 || err != nil || string(buf[:n]) != "he" {
		t.Fatalf("peek: %d %q, %v", n, buf[:max(n, 0)], err)
	}
	if n, err := Read(b, buf); n != 5 || err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read: %d %q, %v", n, buf[:max(n, 0)], err)
	}
	if n, err := Read(b, nil); n != 0 || err != nil {
		t.Fatalf("empty read: %d, %v", n, err)
	}
	if n, err := Write(-1, []byte("x")); n != 0 || !errors.Is(err, unix.EBADF) {
		t.Fatalf("write to -1: %d, %v; want 0, EBADF", n, err)
	}
	if n, err := Peek(b, buf); n != 0 || !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("peek of an empty socket: %d, %v; want 0, EAGAIN", n, err)
	}
	unix.Close(a)
	if n, err := Peek(b, buf); n != 0 || err != nil {
		t.Fatalf("peek after the peer closed: %d, %v; want 0 (EOF), nil", n, err)
	}
	if n, err := Read(b, buf); n != 0 || err != nil {
		t.Fatalf("read after the peer closed: %d, %v; want 0 (EOF), nil", n, err)
	}
}

func TestSplice(t *testing.T) {
	a, b := pair(t)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := Splice(b, p[1], 64, unix.SPLICE_F_NONBLOCK); !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("splice of an empty socket: %v; want EAGAIN", err)
	}
	Write(a, []byte("through the pipe"))
	if n, err := Splice(b, p[1], 64, unix.SPLICE_F_NONBLOCK); n != 16 || err != nil {
		t.Fatalf("splice in: %d, %v", n, err)
	}
	buf := make([]byte, 64)
	if n, err := Read(p[0], buf); string(buf[:n]) != "through the pipe" || err != nil {
		t.Fatalf("the pipe holds %q, %v", buf[:n], err)
	}
}

func TestPoll(t *testing.T) {
	a, b := pair(t)
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ep)
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, b, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(b), Pad: 7}); err != nil {
		t.Fatal(err)
	}
	events := make([]unix.EpollEvent, 4)
	if n, err := Poll(ep, events); n != 0 || err != nil {
		t.Fatalf("nothing ready: %d, %v", n, err)
	}
	Write(a, []byte("x"))
	if n, err := Poll(ep, events); n != 1 || err != nil || events[0].Fd != int32(b) || events[0].Pad != 7 || events[0].Events&unix.EPOLLIN == 0 {
		t.Fatalf("one ready: %d, %v, %+v", n, err, events[0])
	}
}
