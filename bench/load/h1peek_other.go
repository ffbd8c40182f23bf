//go:build !unix

package load

import "net"

// closedWhileIdle cannot peek here: a closed connection is found by the
// request that uses it (and retried, h1client.exchange).
func closedWhileIdle(net.Conn) bool { return false }
