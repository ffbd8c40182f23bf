package wire

import (
	"context"
	"errors"
	"net"
	"net/http/httptrace"
	"net/netip"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// dialTCP4 connects to an IPv4 address from the namespace with only the
// socket made on the switched thread: the connect and its wait run on the
// calling goroutine, through the runtime's poller, as net.Dialer's do. A
// goroutine locked to a thread that waits for its connect is handed back
// to that thread when the SYN-ACK comes — a second wake-up, milliseconds
// on a loaded machine — so connecting read that much above the round trip.
// ConnectStart and ConnectDone reach an httptrace.ClientTrace in ctx as
// net.Dialer's would (http_req_connecting is measured between them).
func (n *Namespace) dialTCP4(ctx context.Context, network string, ap netip.AddrPort) (net.Conn, error) {
	raddr := net.TCPAddrFromAddrPort(ap)
	opErr := func(err error) error { return &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err} }
	var fd int
	if err := n.Do(func() (err error) {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		return err
	}); err != nil {
		return nil, opErr(os.NewSyscallError("socket", err))
	}
	f := os.NewFile(uintptr(fd), "tcp") // pollable: the fd is non-blocking
	defer f.Close()                     // net.FileConn keeps its own copy
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.ConnectStart != nil {
		trace.ConnectStart(network, ap.String())
	}
	err := connect(ctx, f, fd, ap)
	var c net.Conn
	if err == nil {
		c, err = net.FileConn(f)
	}
	if trace != nil && trace.ConnectDone != nil {
		trace.ConnectDone(network, ap.String(), err)
	}
	if err != nil {
		return nil, opErr(err)
	}
	tc := c.(*net.TCPConn)
	_ = tc.SetNoDelay(true) // as net.Dialer's connections
	_ = tc.SetKeepAlive(true)
	return tc, nil
}

// connect starts a non-blocking connect and waits, on the poller, until
// it is done or ctx ends.
func connect(ctx context.Context, f *os.File, fd int, ap netip.AddrPort) error {
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	err := unix.Connect(fd, sa)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EINTR) {
		return os.NewSyscallError("connect", err)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var soErr int
	var gerr error
	first := true
	werr := rc.Write(func(uintptr) bool {
		if first { // the first call comes before the wait
			first = false
			return false
		}
		soErr, gerr = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		return true
	})
	switch {
	case werr != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d, ok := ctx.Deadline(); ok && errors.Is(werr, os.ErrDeadlineExceeded) && !time.Now().Before(d) {
			return context.DeadlineExceeded // the fd's deadline, ctx's timer not yet run
		}
		return werr
	case gerr != nil:
		return os.NewSyscallError("getsockopt", gerr)
	case soErr != 0:
		return os.NewSyscallError("connect", unix.Errno(soErr))
	}
	return nil
}
