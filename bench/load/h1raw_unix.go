//go:build unix

package load

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/middlebench/middlebench/internal/rawio"
)

// rawOf returns the connection's file descriptor access, or nil when it
// has none (a dialer that is not a plain TCP one).
func rawOf(c net.Conn) syscall.RawConn {
	if cc, ok := c.(*countingConn); ok {
		c = cc.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// closedWhileIdle reports whether the peer of an idle connection has
// closed it or sent something unasked (a non-blocking peek finds EOF, an
// error or bytes): what net/http's background reader would have seen
// before the next request, and dropped the connection for.
func (s *h1Source) closedWhileIdle() bool {
	if s.raw == nil {
		return false
	}
	closed := false
	var b [1]byte
	err := s.raw.Read(func(fd uintptr) bool {
		n, err := rawio.Peek(int(fd), b[:])
		closed = n > 0 || (err == nil && n == 0) || (err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR))
		return true // never wait
	})
	return closed || err != nil
}

// rawSendRead writes the request and reads the first bytes of the answer
// in one wait: the read is armed (the poller's readiness reset) before the
// write, so no answer can come before it, and the read is tried only once
// the poller says the answer is there — the read that would only find
// nothing yet (EAGAIN) is never made. Errors are net's (*net.OpError
// around the syscall's, io.EOF at the end), so they classify as net/http's.
func (s *h1Source) rawSendRead(p []byte) (int, error) {
	s.p, s.sent, s.n, s.rerr, s.werr = p, false, 0, nil, nil
	err := s.raw.Read(s.step)
	head := s.head
	s.head, s.p = nil, nil
	s.count.sent.Add(int64(s.wrote))
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case errors.Is(s.werr, syscall.EAGAIN): // a full send buffer: the rest the ordinary way
		n, err := s.c.Write(head[s.wrote:])
		s.wrote += n
		if err != nil {
			return 0, err
		}
		return s.c.Read(p)
	case s.werr != nil:
		return 0, s.opError("write", os.NewSyscallError("write", s.werr))
	case s.rerr != nil:
		return 0, s.opError("read", os.NewSyscallError("read", s.rerr))
	case s.n == 0:
		return 0, io.EOF
	}
	s.count.received.Add(int64(s.n))
	return s.n, nil
}

// rawStep is rawSendRead's callback: first the write (then wait), then the
// read once readable.
func (s *h1Source) rawStep(fd uintptr) bool {
	if !s.sent {
		for s.wrote < len(s.head) {
			n, err := rawio.Write(int(fd), s.head[s.wrote:])
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				s.werr = err
				return true
			}
			s.wrote += n
		}
		s.sent = true
		return false
	}
	for {
		n, err := rawio.Read(int(fd), s.p)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.n, s.rerr = n, err
		if n < 0 {
			s.n = 0
		}
		return true
	}
}

func (s *h1Source) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: s.c.LocalAddr(), Addr: s.c.RemoteAddr(), Err: err}
}
