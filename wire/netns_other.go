//go:build !linux

package wire

import (
	"context"
	"fmt"
	"net"
)

// Prefix starts the name of every namespace a wire creates.
const Prefix = "mbw-"

// Namespace is one side of the wire (Linux only).
type Namespace struct {
	name string
	ip   net.IP
}

// Name is the namespace's name.
func (n *Namespace) Name() string { return n.name }

// IP is the side's address on the wire.
func (n *Namespace) IP() net.IP { return n.ip }

// Do is unavailable off Linux.
func (n *Namespace) Do(func() error) error { return checkAvailable() }

// Listen is unavailable off Linux.
func (n *Namespace) Listen(string, string) (net.Listener, error) { return nil, checkAvailable() }

// DialContext is unavailable off Linux.
func (n *Namespace) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, checkAvailable()
}

// Dialer is unavailable off Linux.
func (n *Namespace) Dialer() func(context.Context, string, string) (net.Conn, error) {
	return n.DialContext
}

func checkAvailable() error {
	return fmt.Errorf("%w: network namespaces and TUN devices are Linux only", ErrUnavailable)
}

// SweepStale has nothing to sweep off Linux.
func SweepStale() ([]string, error) { return nil, nil }

func newSide(string, net.IP, int) (*Namespace, *tunDev, error) { return nil, nil, checkAvailable() }

type tunDev struct{ hold *latencyHold }

func (*tunDev) ReadNow([]byte) (int, error) { return 0, checkAvailable() }
func (*tunDev) Wait() error                 { return checkAvailable() }
func (*tunDev) Write([]byte) (int, error)   { return 0, checkAvailable() }
func (*tunDev) shutdown()                   {}
func (*tunDev) Close() error                { return nil }
func (*tunDev) keepWarm()                   {}

func (n *Namespace) remove() error { return nil }

func pairName() string { return Prefix }

func realtime() bool { return false }

type remoteLines struct{}

func startLineProcess(Config, Options, [2]*tunDev) (*remoteLines, error) {
	return nil, checkAvailable()
}
func (*remoteLines) stats() procStats { return procStats{} }
func (*remoteLines) close() error     { return nil }

type procStats struct {
	Up, Down DirStats
	Realtime bool
	Hold     HoldStats
	Poll     PollStats
}

// ServeLineProcess is never asked for off Linux.
func ServeLineProcess() (bool, error) { return false, nil }

// OpenNamespace is unavailable off Linux.
func OpenNamespace(string) (*Namespace, error) { return nil, checkAvailable() }

// Close has nothing to release off Linux.
func (n *Namespace) Close() error { return nil }
