// Package tcptest serves raw TCP on 127.0.0.1 for tests that need a peer
// net/http would not be: one that hangs, resets, sends garbage, or closes
// a keep-alive connection behind the client's back.
package tcptest

import (
	"net"
	"testing"
)

// Serve listens on 127.0.0.1:0, hands each accepted connection to serve in
// its own goroutine, and returns the address (host:port). The listener is
// closed when the test ends; serve owns its connection.
func Serve(tb testing.TB, serve func(net.Conn)) string {
	tb.Helper()
	return ServeAt(tb, "127.0.0.1:0", serve)
}

// ServeAt is Serve on addr (a port a peer was pointed at beforehand).
func ServeAt(tb testing.TB, addr string, serve func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// FreeAddr returns an address on 127.0.0.1 that nothing listens on: one
// the kernel just gave out and took back, for a server the test starts
// there or for a peer that refuses.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
