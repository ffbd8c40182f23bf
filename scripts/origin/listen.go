package main

import (
	"fmt"
	"net"
)

// listen refuses any address that is not loopback.
func listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("origin: %q is not a loopback address", addr)
	}
	return net.Listen("tcp", addr)
}
