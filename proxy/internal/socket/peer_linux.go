package socket

import (
	"errors"
	"net"
	"syscall"

	"github.com/middlebench/middlebench/internal/rawio"
)

// PeerClosed peeks at an idle connection without blocking: the peer closed
// it (end of stream), reset it, or — on plain HTTP, where an idle
// connection must be silent — sent bytes nobody asked for. Under TLS the
// peer may send records while idle (session tickets), so only the end or
// an error counts.
func PeerClosed(c net.Conn, tlsConn bool) bool {
	sc, ok := Of(c).(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	var buf [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, rerr := rawio.Peek(int(fd), buf[:])
		switch {
		case errors.Is(rerr, syscall.EAGAIN):
		case rerr != nil, n == 0:
			closed = true
		default:
			closed = !tlsConn
		}
		return true // never wait for the socket
	})
	return closed || err != nil
}
