//go:build !linux

package relay

import (
	"net"
	"sync/atomic"
)

// Relay is Linux's epoll loop for plain byte forwarding (relay_linux.go);
// elsewhere every pair is copied by its two goroutines.
type Relay struct{}

// New makes a relay that takes no pair.
func New(up, down *atomic.Int64, block bool) *Relay { return &Relay{} }

// Carry refuses every pair: the caller copies it.
func (*Relay) Carry(client, up net.Conn, nextHopReset func(error)) (<-chan struct{}, bool) {
	return nil, false
}

// Stop does nothing: there is no loop.
func (*Relay) Stop() {}
