package exchange

import (
	"net"
	"sync/atomic"

	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// Tracked is an accepted connection with the box's id for it; OnDone runs
// at its first Close.
type Tracked struct {
	net.Conn
	ID     uint64
	OnDone func()
	closed atomic.Bool
}

func (c *Tracked) Close() error {
	if c.closed.CompareAndSwap(false, true) && c.OnDone != nil {
		c.OnDone()
	}
	return c.Conn.Close()
}

// NetConn returns the socket.
func (c *Tracked) NetConn() net.Conn { return c.Conn }

// CloseWrite, CloseRead and Abort pass the connection's ends to the
// socket.
func (c *Tracked) CloseWrite() error { return socket.CloseWrite(c.Conn) }

func (c *Tracked) CloseRead() error { return socket.CloseRead(c.Conn) }

func (c *Tracked) Abort() error {
	socket.NoLinger(c.Conn)
	return c.Close()
}

// ConnID finds the box's id of a connection through the stages' wrappers;
// 0 for a connection the box did not track.
func ConnID(c net.Conn) uint64 {
	for range 16 {
		switch v := c.(type) {
		case *Tracked:
			return v.ID
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return 0
		}
	}
	return 0
}
