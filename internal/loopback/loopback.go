// Package loopback is the one check every listener of middlebench makes
// before it listens: middlebench's servers and boxes are test devices that
// fault-inject and answer anyone, so they listen on this machine only
// unless their user says otherwise in so many words.
package loopback

import (
	"fmt"
	"net"
)

// CheckListen refuses a listen address beyond the loopback interface:
// every interface (":8080", "0.0.0.0:8080", "[::]:8080"), a LAN or public
// IP, or a host name other than localhost (it may resolve to anything).
// With remote set it checks only that addr is host:port. An empty addr is
// the caller's default and passes.
func CheckListen(addr string, remote bool) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want host:port such as 127.0.0.1:8080", addr)
	}
	if remote {
		return nil
	}
	ip := net.ParseIP(host)
	var why string
	switch {
	case host == "localhost" || ip != nil && ip.IsLoopback():
		return nil
	case host == "" || ip != nil && ip.IsUnspecified():
		why = "listens on every interface"
	case ip == nil:
		why = "is a host name that may resolve beyond this machine"
	default:
		why = "is not a loopback address"
	}
	return fmt.Errorf("%q %s: middlebench's servers and boxes answer anyone who reaches them, so they listen on loopback only (127.0.0.1, ::1, localhost) unless remote listening is allowed explicitly (--allow-remote)", addr, why)
}
