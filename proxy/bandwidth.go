package proxy

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/pace"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// BandwidthConfig caps byte rates: Up (request bytes, client → upstream)
// and Down (response bytes), shared by all the box's connections (a link
// or a server's egress, E4) or PerConnection.
type BandwidthConfig struct {
	Up            units.ByteRate `yaml:"up"`
	Down          units.ByteRate `yaml:"down"`
	PerConnection bool           `yaml:"perConnection"`
	// Burst is the token bucket's size. The default, 10 ms of the rate
	// within [512 B, 64 KiB], keeps the cap exact over short spans (a full
	// bucket lets at most 10 ms of extra bytes through) while a 32 KiB copy
	// is cut into a few reservations at most.
	Burst units.Size `yaml:"burst"`
}

// Kind is "bandwidth".
func (*BandwidthConfig) Kind() string { return "bandwidth" }

type bandwidthStage struct {
	bound
	cfg                BandwidthConfig
	up, down           *pace.Bytes // shared ones (nil when per connection or uncapped)
	bytesUp, bytesDown atomic.Int64
}

func (c *BandwidthConfig) compile() (Stage, error) {
	if c.Burst < 0 {
		return nil, errField("burst", "must not be negative")
	}
	if c.Burst > 0 && c.Up == 0 && c.Down == 0 {
		return nil, errField("burst", "needs up or down")
	}
	return &bandwidthStage{cfg: *c}, nil
}

// start makes the shared shapers, which run on the box's clock.
func (s *bandwidthStage) start() error {
	if !s.cfg.PerConnection {
		s.up, s.down = pace.NewBytes(s.cfg.Up, s.cfg.Burst, s.env.clock), pace.NewBytes(s.cfg.Down, s.cfg.Burst, s.env.clock)
	}
	return nil
}

func (s *bandwidthStage) extraCounts() map[string]int64 {
	return map[string]int64{"bytesUp": s.bytesUp.Load(), "bytesDown": s.bytesDown.Load()}
}

func (s *bandwidthStage) WrapConn(c net.Conn) net.Conn {
	if s.cfg.Up == 0 && s.cfg.Down == 0 {
		return c
	}
	s.c.seen.Add(1)
	bc := &bandwidthConn{Conn: c, s: s, up: s.up, down: s.down}
	if s.cfg.PerConnection {
		bc.up, bc.down = pace.NewBytes(s.cfg.Up, s.cfg.Burst, s.env.clock), pace.NewBytes(s.cfg.Down, s.cfg.Burst, s.env.clock)
	}
	bc.ctx, bc.cancel = context.WithCancel(context.Background())
	return bc
}

// bandwidthConn shapes what it reads (after reading, so the sender is held
// back by TCP flow control) and what it writes (before writing).
type bandwidthConn struct {
	net.Conn
	s          *bandwidthStage
	up, down   *pace.Bytes
	ctx        context.Context
	cancel     context.CancelFunc
	nUp, nDown atomic.Int64
	waited     atomic.Int64 // ns
	closed     atomic.Bool
}

// NetConn returns the connection under the shaper.
func (c *bandwidthConn) NetConn() net.Conn { return c.Conn }

func (c *bandwidthConn) Read(p []byte) (int, error) {
	p = p[:c.up.Piece(len(p))]
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.nUp.Add(int64(n))
		d, werr := c.up.Wait(c.ctx, n)
		c.waited.Add(int64(d))
		if werr != nil && err == nil {
			err = net.ErrClosed
		}
	}
	return n, err
}

func (c *bandwidthConn) Write(p []byte) (int, error) {
	if c.down == nil {
		n, err := c.Conn.Write(p)
		c.nDown.Add(int64(n))
		return n, err
	}
	return writePieces(c.Conn, p, &c.nDown, func(want int) (int, error) {
		k := c.down.Piece(want)
		d, err := c.down.Wait(c.ctx, k)
		c.waited.Add(int64(d))
		if err != nil {
			return 0, net.ErrClosed
		}
		return k, nil
	})
}

// CloseWrite and CloseRead pass on at once: a Write returns once its
// bytes have waited for the cap and are written, so nothing of this
// connection's is still held.
func (c *bandwidthConn) CloseWrite() error { return socket.CloseWrite(c.Conn) }

func (c *bandwidthConn) CloseRead() error { return socket.CloseRead(c.Conn) }

// Abort counts the connection as Close does and resets it.
func (c *bandwidthConn) Abort() error {
	c.finish()
	abortConn(c.Conn)
	return nil
}

func (c *bandwidthConn) Close() error {
	c.finish()
	return c.Conn.Close()
}

// finish stops the connection's waits and counts it, once.
func (c *bandwidthConn) finish() {
	if c.closed.CompareAndSwap(false, true) {
		c.cancel()
		up, down, waited := c.nUp.Load(), c.nDown.Load(), time.Duration(c.waited.Load())
		s := c.s
		s.c.passed.Add(1)
		s.c.bytes.Add(up + down)
		s.bytesUp.Add(up)
		s.bytesDown.Add(down)
		if waited > 0 {
			s.c.addDelay(waited)
			s.env.record(LedgerEntry{Conn: exchange.ConnID(c.Conn), Action: ActShaped, Bytes: up + down, AppliedMs: timing.Millis(waited),
				Note: "time the connection's bytes waited for the cap"})
		}
	}
}
