package proxy

import (
	"net"
	"sync"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// trackListener gives every accepted connection an id and counts it, and
// holds the box's connection cap: at MaxConns open connections it stops
// accepting until one closes (golang.org/x/net/netutil's LimitListener),
// so that new ones wait in the listen backlog; each wait is counted.
type trackListener struct {
	net.Listener
	b     *Box
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newTrackListener(l net.Listener, b *Box, maxConns int) *trackListener {
	return &trackListener{Listener: l, b: b, slots: make(chan struct{}, maxConns), done: make(chan struct{})}
}

func (l *trackListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.b.capWaits.Add(1)
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.b.accepted.Add(1)
	l.b.active.Add(1)
	tc := &exchange.Tracked{Conn: c, ID: l.b.connSeq.Add(1), OnDone: func() { l.b.active.Add(-1); <-l.slots }}
	return tc, nil
}

func (l *trackListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
