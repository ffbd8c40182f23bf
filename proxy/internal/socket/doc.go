// Package socket is what the box and its forwarding engines do to a socket
// below net's API: listen with a chosen backlog, peek whether an idle peer
// is gone, find the socket under a connection's wrappers, duplicate a
// descriptor for an event loop, and ask many clients at once, in one
// poll(2) that does not wait, which of them have something to say.
//
//	net.Conn ─(Of: NetConn, NetConn …)→ socket ─→ PeerClosed (MSG_PEEK, never waits)
//	                                           ├─→ Dup (F_DUPFD_CLOEXEC: the loop's own fd)
//	                                           └─→ FD ─→ PollSet.Add … Poll ─→ Ready(i)
//	addr, backlog ─→ ListenBacklog (socket, bind, listen(2)) ─→ net.Listener
package socket
