// Package forward carries a byte box's connection pairs: the bytes of a
// client's connection to the next hop and back, not parsed.
//
//	client ──(stages' wrappers)── c ─┐                 ┌─ up ── next hop
//	                                 └─ Carry: relay (one epoll loop, both plain sockets)
//	                                           or two copy goroutines (read/write, then splice)
//	end of a way: EOF → Ends.CloseWrite (a half-close); a failed read → Ends.Abort (a reset)
//
// Ends is the box's: a stage that delays bytes delays their end too.
package forward
