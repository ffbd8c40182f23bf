package socket

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// FD is the descriptor of c's socket, or -1. The number is used
// only to ask poll(2) whether the client has something to say (the lean
// loop's wait list), never to read or write it: a number the connection no
// longer holds can at worst start a watch that was not needed, which is
// what watching every request does anyway.
func FD(c net.Conn) int {
	sc, ok := Of(c).(syscall.Conn)
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

// PollSet asks, in one poll(2) that does not wait, which clients sent
// bytes, closed their side or failed.
type PollSet struct{ fds []unix.PollFd }

// Reset empties the set for the next poll.
func (p *PollSet) Reset() { p.fds = p.fds[:0] }

// Add puts fd in the set, to be asked whether it is readable or hung up.
func (p *PollSet) Add(fd int) {
	p.fds = append(p.fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN | unix.POLLRDHUP})
}

// Poll runs the poll; after it, Ready(i) says whether the i-th added
// client has something to say (true for one that cannot be polled, or
// when the poll fails: its watch starts, as it always did).
func (p *PollSet) Poll() {
	if _, err := unix.Poll(p.fds, 0); err != nil {
		for i := range p.fds {
			p.fds[i].Fd = -1
		}
	}
}

// Ready says whether the i-th fd added has something to say.
func (p *PollSet) Ready(i int) bool { return p.fds[i].Fd < 0 || p.fds[i].Revents != 0 }
