//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// listen refuses any address that is not loopback; a backlog above 0 is the
// listen(2) backlog (Go's own listeners always ask for the system's maximum).
func listen(addr string, backlog int) (net.Listener, error) {
	tcp, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return nil, err
	}
	if !tcp.IP.IsLoopback() {
		return nil, fmt.Errorf("origin: %q is not a loopback address", addr)
	}
	if backlog <= 0 {
		return net.ListenTCP("tcp4", tcp)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	sa := &syscall.SockaddrInet4{Port: tcp.Port}
	copy(sa.Addr[:], tcp.IP.To4())
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Listen(fd, backlog); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "origin-listener")
	defer f.Close()
	return net.FileListener(f)
}
