package proxy

import (
	"net"

	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// How a connection's end passes through the stages' wrappers. A stage
// that wraps a connection passes each of its ends on, in order with its
// bytes and after its own delay:
//
//	CloseWrite  the FIN: the other side's answer is complete (a
//	            close-delimited body, or a body cut short)
//	CloseRead   no more reads
//	Abort       a reset (SO_LINGER 0): the other side failed
//
// A wrapper without one of them loses that end: behind a link, the client
// of a close-delimited answer waited for its FIN until a timeout.

// aborter is a connection that can end with a reset, after what is ahead
// of it.
type aborter interface{ Abort() error }

// connEnds passes a connection's ends on through its stages' wrappers,
// for the byte forwarder (forward.Ends).
type connEnds struct{}

func (connEnds) CloseWrite(c net.Conn) { _ = socket.CloseWrite(c) }
func (connEnds) Abort(c net.Conn)      { abortConn(c) }

// abortConn ends c with a reset (ECONNRESET at the peer), not a clean
// close: through c's Abort when it has one (its stages' delays kept),
// else with SO_LINGER 0 on the socket under its wrappers.
func abortConn(c net.Conn) {
	if a, ok := c.(aborter); ok {
		_ = a.Abort()
		return
	}
	socket.NoLinger(c)
	c.Close()
}
