package proxy

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// socketFD is the descriptor of c's socket, or -1. The number is used
// only to ask poll(2) whether the client has something to say (see
// waitList), never to read or write it: a number the connection no
// longer holds can at worst start a watch that was not needed, which is
// what watching every request does anyway.
func socketFD(c net.Conn) int {
	sc, ok := socket.Of(c).(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(s uintptr) { fd = int(s) }) != nil {
		return -1
	}
	return fd
}

// clientPoll asks, in one poll(2) that does not wait, which clients sent
// bytes, closed their side or failed.
type clientPoll struct{ fds []unix.PollFd }

func (p *clientPoll) reset() { p.fds = p.fds[:0] }

func (p *clientPoll) add(fd int) {
	p.fds = append(p.fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN | unix.POLLRDHUP})
}

// poll runs the poll; after it, ready(i) says whether the i-th added
// client has something to say (true for one that cannot be polled, or
// when the poll fails: its watch starts, as it always did).
func (p *clientPoll) poll() {
	if _, err := unix.Poll(p.fds, 0); err != nil {
		for i := range p.fds {
			p.fds[i].Fd = -1
		}
	}
}

func (p *clientPoll) ready(i int) bool { return p.fds[i].Fd < 0 || p.fds[i].Revents != 0 }
