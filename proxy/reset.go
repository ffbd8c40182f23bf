package proxy

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"

	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// ResetConfig resets Percent of the connections (chosen by the path's
// seed, so the same run resets the same ones) once After bytes have passed
// through the stage, both ways together: a device that drops connections
// mid-stream, a load balancer killing long transfers. The client sees
// ECONNRESET; the next hop's connection is closed with it. After 0 resets
// a chosen connection at its first byte.
type ResetConfig struct {
	Percent float64    `yaml:"percent"` // share of connections reset, 0–100
	After   units.Size `yaml:"after"`   // bytes passed (up + down) before the reset
}

// Kind is "reset".
func (*ResetConfig) Kind() string { return "reset" }

type resetStage struct {
	bound
	cfg    ResetConfig
	resets atomic.Int64
}

func (c *ResetConfig) compile() (Stage, error) {
	if err := checkPercent("percent", c.Percent); err != nil {
		return nil, err
	}
	if c.After < 0 {
		return nil, errField("after", "must not be negative")
	}
	return &resetStage{cfg: *c}, nil
}

func (s *resetStage) extraCounts() map[string]int64 {
	return map[string]int64{"resets": s.resets.Load()}
}

// WrapConn draws whether the connection is reset; the others keep their
// socket (and splice) untouched.
func (s *resetStage) WrapConn(c net.Conn) net.Conn {
	s.c.seen.Add(1)
	id := exchange.ConnID(c)
	if s.cfg.Percent == 0 || s.env.rng(id).Float64()*100 >= s.cfg.Percent {
		s.c.passed.Add(1)
		return c
	}
	rc := &budgetConn{Conn: c, s: s, id: id}
	rc.left.Store(int64(s.cfg.After))
	return rc
}

// errReset is what the reset connection's reads and writes return: not
// net.ErrClosed, so that a forwarder closes the other side too.
var errReset = errors.New("proxy: connection reset by the reset stage")

// budgetConn passes its budget of bytes, then resets. A write reserves
// its bytes before it moves them; a read, which may wait long, takes them
// once they have arrived: together they never pass more than the budget.
type budgetConn struct {
	net.Conn
	s      *resetStage
	id     uint64
	left   atomic.Int64 // bytes still allowed
	passed atomic.Int64 // bytes moved
	once   sync.Once    // the connection's end: reset, or closed before
}

// NetConn returns the connection under the stage.
func (c *budgetConn) NetConn() net.Conn { return c.Conn }

// take reserves up to want bytes of the budget.
func (c *budgetConn) take(want int) int {
	for {
		left := c.left.Load()
		k := min(int64(want), left)
		if k <= 0 {
			return 0
		}
		if c.left.CompareAndSwap(left, left-k) {
			return int(k)
		}
	}
}

func (c *budgetConn) Read(p []byte) (int, error) {
	left := c.left.Load()
	if left <= 0 {
		return 0, c.abort()
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := c.Conn.Read(p)
	// Writes may have spent budget while the read waited: what is read
	// beyond the budget never passes (the connection is reset for it).
	k := c.take(n)
	c.passed.Add(int64(k))
	if k < n {
		if k == 0 {
			return 0, c.abort()
		}
		return k, nil
	}
	return n, err
}

func (c *budgetConn) Write(p []byte) (int, error) {
	return writePieces(c.Conn, p, &c.passed, func(want int) (int, error) {
		if k := c.take(want); k > 0 {
			return k, nil
		}
		return 0, c.abort()
	})
}

// abort resets the connection, once, and records it.
func (c *budgetConn) abort() error {
	c.once.Do(func() {
		s := c.s
		s.resets.Add(1)
		s.c.reject(0)
		s.c.bytes.Add(c.passed.Load())
		s.env.record(LedgerEntry{Conn: c.id, Action: ActReset, Bytes: c.passed.Load(), Note: "reset after the connection's byte budget"})
		abortConn(c.Conn)
	})
	return errReset
}

// Close counts a chosen connection that ended before its budget as passed.
func (c *budgetConn) Close() error {
	c.passedOn()
	return c.Conn.Close()
}

// CloseWrite and CloseRead pass on: a half-close is no byte.
func (c *budgetConn) CloseWrite() error { return socket.CloseWrite(c.Conn) }

func (c *budgetConn) CloseRead() error { return socket.CloseRead(c.Conn) }

// Abort passes on a reset from the other side (not the stage's own).
func (c *budgetConn) Abort() error {
	c.passedOn()
	abortConn(c.Conn)
	return nil
}

func (c *budgetConn) passedOn() {
	c.once.Do(func() {
		c.s.c.passed.Add(1)
		c.s.c.bytes.Add(c.passed.Load())
	})
}
