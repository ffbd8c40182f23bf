// Package exchange is what a box and its HTTP loops share of one request's
// passage: its ids (the connection's, the request's), the time each stage
// added, its client's body as read, and whether the box began an answer.
// The box (proxy) makes one per request on net/http's path, the loops
// (proxy/internal/h1loop) on theirs; stages find it in the request's
// context (From).
//
//	accepted conn ─→ Tracked (ID) ─→ loop or net/http ─→ Exchange{Conn, Req}
//	                                                        │
//	   WatchBody: the client's body, its first error ←──────┤
//	   Serve: the box's chain; no answer, client gone → abort the connection
//	   TimingWriter: the stages' Timings as Server-Timing entries
package exchange
