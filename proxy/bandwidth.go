package proxy

import (
	"context"
	"net"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/clock"
	"github.com/middlebench/middlebench/units"
	"golang.org/x/time/rate"
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

// burstFor is the bucket size for a rate (see BandwidthConfig.Burst).
func burstFor(r units.ByteRate, set units.Size) int {
	if set > 0 {
		return int(set)
	}
	b := int(float64(r) / 100)
	return min(max(b, 512), 64<<10)
}

// shaper paces bytes through a token bucket on an injectable clock.
// Bytes pass in pieces of a quarter of the bucket: a writer that comes back
// late finds the tokens it missed still in the bucket, where pieces the
// size of the bucket would lose them (a 2 MiB/s cap ran 6–8 % slow under
// the race detector's slower loop).
type shaper struct {
	lim   *rate.Limiter
	burst int
	piece int
	clk   clock.Clock
}

func newShaper(r units.ByteRate, burst units.Size, clk clock.Clock) *shaper {
	if r == 0 {
		return nil
	}
	b := burstFor(r, burst)
	return &shaper{lim: rate.NewLimiter(rate.Limit(r), b), burst: b, piece: max(b/4, 1), clk: clk}
}

// delay reserves n bytes (n ≤ burst) at now and says how long to wait:
// the pure part, tested on a fake clock.
func (s *shaper) delay(now time.Time, n int) time.Duration {
	return s.lim.ReserveN(now, n).DelayFrom(now)
}

// wait blocks until n bytes may pass; it returns the time waited.
func (s *shaper) wait(ctx context.Context, n int) (time.Duration, error) {
	var total time.Duration
	for n > 0 {
		k := min(n, s.piece)
		d := s.delay(s.clk.Now(), k)
		if d > 0 {
			if err := clock.Wait(ctx, s.clk, d); err != nil {
				return total, err
			}
			total += d
		}
		n -= k
	}
	return total, nil
}

type bandwidthStage struct {
	cfg      BandwidthConfig
	env      *stageEnv
	c        *counters
	up, down *shaper // shared ones (nil when per connection or uncapped)
}

func (c *BandwidthConfig) build(env *stageEnv) (Stage, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &bandwidthStage{cfg: *c, env: env}
	s.c = newCounters("bandwidth", env.index, "bytesUp", "bytesDown")
	env.c = s.c
	if !c.PerConnection {
		s.up, s.down = newShaper(c.Up, c.Burst, env.clock), newShaper(c.Down, c.Burst, env.clock)
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
		bc.up, bc.down = newShaper(s.cfg.Up, s.cfg.Burst, s.env.clock), newShaper(s.cfg.Down, s.cfg.Burst, s.env.clock)
	}
	bc.ctx, bc.cancel = context.WithCancel(context.Background())
	return bc, nil
}

// bandwidthConn shapes what it reads (after reading, so the sender is held
// back by TCP flow control) and what it writes (before writing).
type bandwidthConn struct {
	net.Conn
	s          *bandwidthStage
	up, down   *shaper
	ctx        context.Context
	cancel     context.CancelFunc
	nUp, nDown atomic.Int64
	waited     atomic.Int64 // ns
	closed     atomic.Bool
}

// NetConn returns the connection under the shaper.
func (c *bandwidthConn) NetConn() net.Conn { return c.Conn }

func (c *bandwidthConn) Read(p []byte) (int, error) {
	if c.up != nil && len(p) > c.up.piece {
		p = p[:c.up.piece]
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.nUp.Add(int64(n))
		if c.up != nil {
			d, werr := c.up.wait(c.ctx, n)
			c.waited.Add(int64(d))
			if werr != nil && err == nil {
				err = net.ErrClosed
			}
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
		k := min(len(p), c.down.piece)
		d, err := c.down.wait(c.ctx, k)
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
