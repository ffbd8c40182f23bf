//go:build unix

package load

import (
	"errors"
	"net"
	"syscall"
)

// closedWhileIdle reports whether the peer of an idle connection has
// closed it or sent something unasked (a non-blocking peek finds EOF, an
// error or bytes): what net/http's background reader would have seen
// before the next request, and dropped the connection for.
func closedWhileIdle(c net.Conn) bool {
	if cc, ok := c.(*countingConn); ok {
		c = cc.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n > 0 || (err == nil && n == 0) || (err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR))
		return true // never wait
	})
	return closed || err != nil
}
