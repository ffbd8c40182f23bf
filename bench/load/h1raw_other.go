//go:build !unix

package load

import (
	"errors"
	"net"
	"syscall"
)

// rawOf has no descriptor access here: the lean client writes and reads
// through the connection (h1Source.Read).
func rawOf(net.Conn) syscall.RawConn { return nil }

// closedWhileIdle cannot peek here: a closed connection is found by the
// request that uses it (and retried, h1client.exchange).
func (s *h1Source) closedWhileIdle() bool { return false }

func (s *h1Source) rawSendRead([]byte) (int, error) { return 0, errors.New("no raw connection") }

func (s *h1Source) rawStep(uintptr) bool { return true }
