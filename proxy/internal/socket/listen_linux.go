//go:build linux

package socket

import (
	"fmt"
	"net"
	"net/netip"
	"os"

	"golang.org/x/sys/unix"
)

// BacklogSupported: ListenBacklog works here.
const BacklogSupported = true

// ListenBacklog listens on addr with listen(2)'s backlog set, which Go's
// net.Listen does not expose (it uses somaxconn).
func ListenBacklog(addr string, backlog int) (net.Listener, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		tcp, rerr := net.ResolveTCPAddr("tcp", addr)
		if rerr != nil {
			return nil, fmt.Errorf("listen %s: %w", addr, rerr)
		}
		ap = tcp.AddrPort()
	}
	var sa unix.Sockaddr
	family := unix.AF_INET
	if ap.Addr().Is4() || ap.Addr().Is4In6() {
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().Unmap().As4()}
	} else {
		family = unix.AF_INET6
		sa = &unix.SockaddrInet6{Port: int(ap.Port()), Addr: ap.Addr().As16()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return nil, fmt.Errorf("listen %s: socket: %w", addr, err)
	}
	f := os.NewFile(uintptr(fd), "listener "+addr)
	defer f.Close() // net.FileListener keeps its own duplicate
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return nil, fmt.Errorf("listen %s: SO_REUSEADDR: %w", addr, err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		return nil, fmt.Errorf("listen %s: bind: %w", addr, err)
	}
	if err := unix.Listen(fd, backlog); err != nil {
		return nil, fmt.Errorf("listen %s: listen(backlog %d): %w", addr, backlog, err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, nil
}
