package socket

import (
	"net"

	"golang.org/x/sys/unix"
)

// Dup duplicates c's descriptor, close-on-exec and, like c's, non-blocking:
// an event loop takes the socket out of net's poller with it (and closes c).
func Dup(c *net.TCPConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) { nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	return nfd, derr
}
