package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// dialTCP4 connects to an IPv4 address from the namespace with only the
// socket made on the switched thread: the connect and its wait run on the
// calling goroutine, through the runtime's poller, as net.Dialer's do. A
// goroutine locked to a thread that waits for its connect is handed back
// to that thread when the SYN-ACK comes — a second wake-up, milliseconds
// on a loaded machine — so connecting read that much above the round trip.
// ConnectStart and ConnectDone reach an httptrace.ClientTrace in ctx as
// net.Dialer's would (http_req_connecting is measured between them): the
// start before the socket is made, the done after its options are set, as
// net's dialSingle brackets its dialTCP (so k6's connecting counts the
// socket(2) too).
func (n *Namespace) dialTCP4(ctx context.Context, network string, ap netip.AddrPort) (c net.Conn, err error) {
	raddr := net.TCPAddrFromAddrPort(ap)
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.ConnectStart != nil {
		trace.ConnectStart(network, ap.String())
	}
	if trace != nil && trace.ConnectDone != nil {
		defer func() { trace.ConnectDone(network, ap.String(), err) }()
	}
	fd, err := n.socket()
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err}
	}
	if c, err = connect(ctx, fd, ap); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: raddr, Err: err}
	}
	tc := c.(*net.TCPConn)
	_ = tc.SetNoDelay(true) // as net.Dialer's connections
	_ = tc.SetKeepAlive(true)
	return tc, nil
}

// ownNetns is the namespace this process's threads run in, opened once
// (on a fresh goroutine, so on a thread no one has switched: every thread
// this package switches is switched back, or ends with its goroutine).
// Opened for each dial (netns.Get: an open(2) of /proc and its close) it
// was half the socket's cost. It never changes: computed once, not state.
var ownNetns = sync.OnceValues(func() (netns.NsHandle, error) {
	type got struct {
		h   netns.NsHandle
		err error
	}
	gc := make(chan got, 1)
	go func() { h, err := netns.Get(); gc <- got{h, err} }()
	g := <-gc
	return g.h, g.err
})

// socket makes a TCP socket in the namespace on the caller's own thread,
// locked for three short system calls (setns, socket, setns back) and
// released: no goroutine to start and hand the result back, so no
// scheduling point before the connect. A helper goroutine per dial (as Do
// has) made the dialer wait for it and then for its own turn again, after
// the runtime had woken a thread for it, which lengthened the time from
// DialContext to ConnectStart under load. The thread was
// in the process's own namespace — the caller must not be switched into
// another (inside a Namespace.Do) — and goes back to it; one that cannot
// be switched back stays locked to the caller and ends with it.
func (n *Namespace) socket() (int, error) {
	fd := -1
	runtime.LockOSThread()
	back, err := switchedFor(n.h, func() (err error) {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		return os.NewSyscallError("socket", err)
	})
	if back {
		runtime.UnlockOSThread()
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("%s: %w", n.name, err)
	}
	return fd, nil
}

// connect starts a non-blocking connect and waits, on the poller, until
// it is done or ctx ends; it owns fd. The fd goes to the poller only once
// the connect is under way: registered before, a socket not yet connected
// reports itself writable (hung up) at once.
func connect(ctx context.Context, fd int, ap netip.AddrPort) (net.Conn, error) {
	sa := &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}
	err := unix.Connect(fd, sa)
	if err != nil && !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EINTR) {
		unix.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	f := os.NewFile(uintptr(fd), "tcp") // pollable: the fd is non-blocking
	defer f.Close()                     // net.FileConn keeps its own copy
	if err != nil {
		if err := waitConnected(ctx, f, fd); err != nil {
			return nil, err
		}
	}
	return net.FileConn(f)
}

// waitConnected waits until the connect in progress on fd is done, as
// net's own dial does: writable, then SO_ERROR, then a peer to confirm.
func waitConnected(ctx context.Context, f *os.File, fd int) error {
	if d, ok := ctx.Deadline(); ok {
		_ = f.SetWriteDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var cerr error
	werr := rc.Write(func(uintptr) bool {
		soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		switch e := unix.Errno(soErr); {
		case err != nil:
			cerr = os.NewSyscallError("getsockopt", err)
		case e == unix.EINPROGRESS || e == unix.EALREADY || e == unix.EINTR:
			return false
		case e != 0:
			cerr = os.NewSyscallError("connect", e)
		default:
			if _, err := unix.Getpeername(fd); err != nil {
				return false // not connected yet: wait again
			}
		}
		return true
	})
	if werr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d, ok := ctx.Deadline(); ok && errors.Is(werr, os.ErrDeadlineExceeded) && !time.Now().Before(d) {
			return context.DeadlineExceeded // the fd's deadline, ctx's timer not yet run
		}
		return werr
	}
	return cerr
}
