//go:build !linux

package proxy

import (
	"net"
	"sync/atomic"
)

// relay is Linux's epoll loop for plain byte forwarding (relay_linux.go);
// elsewhere every pair is copied by its two goroutines.
type relay struct{}

func newRelay(up, down *atomic.Int64, block bool) *relay { return &relay{} }

func (*relay) carry(client, up net.Conn, nextHopReset func(error)) (<-chan struct{}, bool) {
	return nil, false
}

func (*relay) stop() {}
