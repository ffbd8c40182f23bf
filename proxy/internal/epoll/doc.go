// Package epoll is the event set under the box's loops (the byte relay,
// the HTTP loop): a level-triggered epoll set with an eventfd that other
// goroutines signal, waited on either in the runtime's poller or blocked
// in epoll_wait, and the calls a loop makes on its non-blocking sockets.
//
//	goroutines ─Signal→ eventfd ─┐
//	sockets (Ctl: fd, pad) ──────┴→ Set ─Wait→ events (Pad: WakePad or the caller's)
//	                                    └→ Read / Write / Splice (EINTR retried)
//
// Linux only; elsewhere a box's connections each have goroutines of their own.
package epoll
