// Package socket is what the box and its forwarding engines do to a socket
// below net's API: listen with a chosen backlog, peek whether an idle peer
// is gone, find the socket under a connection's wrappers, and duplicate a
// descriptor for an event loop.
//
//	net.Conn ─(Of: NetConn, NetConn …)→ socket ─→ PeerClosed (MSG_PEEK, never waits)
//	                                           └─→ Dup (F_DUPFD_CLOEXEC: the loop's own fd)
//	addr, backlog ─→ ListenBacklog (socket, bind, listen(2)) ─→ net.Listener
package socket
