// Package relay moves the bytes of a byte box's connection pairs that no
// stage wraps (plain TCP on both sides) on one goroutine, from one epoll
// set of its own (package epoll).
//
//	client ─read→ [buf, or a pipe once a read fills it] ─write/splice→ next hop   (way 0, counts up)
//	client ←write/splice─ [buf, or a pipe] ←read─ next hop                        (way 1, counts down)
//	EOF: a half-close once what came before it is written; an error: both ends close (a reset, reset)
//
// Carry takes a pair or refuses it (another kind of connection, or
// outside Linux): the box then copies it with two goroutines.
package relay
