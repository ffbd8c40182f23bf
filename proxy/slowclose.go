package proxy

import (
	"net"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// SlowCloseConfig holds back the box's end of each connection: when the
// box half-closes or closes a client connection, the FIN leaves Delay
// later — a server or device slow to tear connections down. A response
// that ends with the connection (no Content-Length) is received Delay
// late, and the connection stays open, counted active, meanwhile. Closing
// the box ends every held close at once.
type SlowCloseConfig struct {
	Delay units.Dist `yaml:"delay"` // 200ms, uniform:100ms..300ms …
}

// Kind is "slowclose".
func (*SlowCloseConfig) Kind() string { return "slowclose" }

type slowCloseStage struct {
	bound
	cfg  SlowCloseConfig
	done chan struct{} // closed with the box: held closes go at once
	// mu orders hold's wg.Add before Close's wg.Wait: a connection closing
	// while the box closes either joins the wait or closes at once.
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func (c *SlowCloseConfig) compile() (Stage, error) {
	return &slowCloseStage{cfg: *c, done: make(chan struct{})}, nil
}

// WrapConn holds the connection's closes; without a delay it keeps the
// socket (and splice) untouched.
func (s *slowCloseStage) WrapConn(c net.Conn) net.Conn {
	if s.cfg.Delay.IsZero() {
		return c
	}
	s.c.seen.Add(1)
	id := exchange.ConnID(c)
	var rng randSource
	if !s.cfg.Delay.IsFixed() {
		rng = s.env.rng(id)
	}
	return &slowCloseConn{Conn: c, s: s, id: id, delay: s.cfg.Delay.Sample(rng)}
}

// Close lets every held close go and waits for them.
func (s *slowCloseStage) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// hold runs end after d on the stage's clock, or at once when the box
// closes, in its own goroutine; it returns how long it held.
func (s *slowCloseStage) hold(d time.Duration, end func(held time.Duration)) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		end(0)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		start := s.env.clock.Now()
		t := s.env.clock.NewTimer(d)
		select {
		case <-t.C():
		case <-s.done:
			t.Stop()
		}
		end(s.env.clock.Now().Sub(start))
	}()
}

// slowCloseConn delays its CloseWrite (the FIN) and its Close.
type slowCloseConn struct {
	net.Conn
	s         *slowCloseStage
	id        uint64
	delay     time.Duration
	finOnce   sync.Once
	closeOnce sync.Once
}

// NetConn returns the connection under the stage.
func (c *slowCloseConn) NetConn() net.Conn { return c.Conn }

// CloseWrite sends the FIN after the delay.
func (c *slowCloseConn) CloseWrite() error {
	c.finOnce.Do(func() {
		c.s.hold(c.delay, func(time.Duration) { socket.CloseWrite(c.Conn) })
	})
	return nil
}

// CloseRead passes on at once: it sends nothing to the peer.
func (c *slowCloseConn) CloseRead() error { return socket.CloseRead(c.Conn) }

// Close closes the connection after the delay, and records what it held.
func (c *slowCloseConn) Close() error {
	c.end(func() { c.Conn.Close() })
	return nil
}

// Abort resets the connection after the delay: a reset is a close too.
func (c *slowCloseConn) Abort() error {
	c.end(func() { abortConn(c.Conn) })
	return nil
}

// end runs how the connection ends after the delay, once, and records
// what it held.
func (c *slowCloseConn) end(how func()) {
	c.closeOnce.Do(func() {
		c.s.hold(c.delay, func(held time.Duration) {
			how()
			s := c.s
			s.c.passed.Add(1)
			s.c.addDelay(held)
			s.env.record(LedgerEntry{Conn: c.id, Action: ActDelayed, AskedMs: timing.Millis(c.delay), AppliedMs: timing.Millis(held),
				Note: "the connection's close held"})
		})
	})
}
