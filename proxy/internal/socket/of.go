package socket

import "net"

// Of finds the socket under a wrapped connection (TLS, a stage's
// wrapper): each layer exposes the one below with NetConn.
func Of(c net.Conn) net.Conn {
	for range 4 {
		nc, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = nc.NetConn()
	}
	return c
}
