package socket

import "net"

// CloseWrite half-closes c (its FIN), when c can.
func CloseWrite(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// CloseRead shuts c's reading side, when c can.
func CloseRead(c net.Conn) error {
	if cr, ok := c.(interface{ CloseRead() error }); ok {
		return cr.CloseRead()
	}
	return nil
}

// NoLinger sets SO_LINGER 0 on the TCP socket under c's wrappers, so that
// closing it resets the connection.
func NoLinger(c net.Conn) {
	for range 16 {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
			return
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return
		}
		c = u.NetConn()
	}
}
