//go:build !linux

package socket

import "net"

// PeerClosed cannot peek without blocking here: idle connections are then
// closed by the idle limit, or found dead by the next request (and retried).
func PeerClosed(net.Conn, bool) bool { return false }
