package proxy

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/pace"
	"github.com/middlebench/middlebench/units"
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

func (c *BandwidthConfig) validate() error {
	if c.Burst < 0 {
		return errField("burst", "must not be negative")
	}
	if c.Burst > 0 && c.Up == 0 && c.Down == 0 {
		return errField("burst", "needs up or down")
	}
	return nil
}

type bandwidthStage struct {
	cfg      BandwidthConfig
	env      *stageEnv
	c        *counters
	up, down *pace.Bytes // shared ones (nil when per connection or uncapped)
}

func (c *BandwidthConfig) build(env *stageEnv) (Stage, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &bandwidthStage{cfg: *c, env: env}
	s.c = newCounters("bandwidth", env.index, "bytesUp", "bytesDown")
	env.c = s.c
	if !c.PerConnection {
		s.up, s.down = pace.NewBytes(c.Up, c.Burst, env.clock), pace.NewBytes(c.Down, c.Burst, env.clock)
	}
	return s, nil
}

func (s *bandwidthStage) Stats() StageStats { return s.c.stats() }

func (s *bandwidthStage) WrapListener(l net.Listener) net.Listener {
	if s.cfg.Up == 0 && s.cfg.Down == 0 {
		return l
	}
	return &bandwidthListener{Listener: l, s: s}
}

type bandwidthListener struct {
	net.Listener
	s *bandwidthStage
}

func (l *bandwidthListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	s := l.s
	s.c.seen.Add(1)
	bc := &bandwidthConn{Conn: c, s: s, up: s.up, down: s.down}
	if s.cfg.PerConnection {
		bc.up, bc.down = pace.NewBytes(s.cfg.Up, s.cfg.Burst, s.env.clock), pace.NewBytes(s.cfg.Down, s.cfg.Burst, s.env.clock)
	}
	bc.ctx, bc.cancel = context.WithCancel(context.Background())
	return bc, nil
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
	written := 0
	for len(p) > 0 {
		k := c.down.Piece(len(p))
		d, err := c.down.Wait(c.ctx, k)
		c.waited.Add(int64(d))
		if err != nil {
			return written, net.ErrClosed
		}
		n, err := c.Conn.Write(p[:k])
		written += n
		c.nDown.Add(int64(n))
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}

func (c *bandwidthConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.cancel()
		up, down, waited := c.nUp.Load(), c.nDown.Load(), time.Duration(c.waited.Load())
		s := c.s
		s.c.passed.Add(1)
		s.c.bytes.Add(up + down)
		s.c.inc(0, up)
		s.c.inc(1, down)
		if waited > 0 {
			s.c.addDelay(waited)
			s.env.record(LedgerEntry{Conn: connID(c.Conn), Action: ActShaped, Bytes: up + down, AppliedMs: ms(waited),
				Note: "time the connection's bytes waited for the cap"})
		}
	}
	return c.Conn.Close()
}
