package proxy

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// LinkConfig is distance: one-way latency on the bytes in flight, each
// direction, so that every round trip over the box pays Up + Down — TLS
// round trips and request → response alike. It works on the bytes the box
// reads and writes after the kernel has accepted the connection, so it
// cannot delay TCP's own SYN / SYN-ACK (http_req_connecting); see the
// package doc for what can.
type LinkConfig struct {
	Latency  units.Dist     `yaml:"latency"`  // one-way, both directions: 15ms, normal:15ms,2ms …
	Up       units.Dist     `yaml:"up"`       // client → upstream, overrides latency
	Down     units.Dist     `yaml:"down"`     // upstream → client, overrides latency
	Jitter   units.Duration `yaml:"jitter"`   // ± uniform on each chunk (order is kept)
	InFlight units.Size     `yaml:"inFlight"` // bytes held per direction before the sender blocks (default 4MiB)
}

// Kind is "link".
func (*LinkConfig) Kind() string { return "link" }

func (c *LinkConfig) up() units.Dist {
	if !c.Up.IsZero() {
		return c.Up
	}
	return c.Latency
}

func (c *LinkConfig) down() units.Dist {
	if !c.Down.IsZero() {
		return c.Down
	}
	return c.Latency
}

type linkStage struct {
	bound
	cfg                LinkConfig
	inFlight           int
	bytesUp, bytesDown atomic.Int64
}

func (c *LinkConfig) compile() (Stage, error) {
	if c.InFlight < 0 {
		return nil, errField("inFlight", "must not be negative")
	}
	s := &linkStage{cfg: *c, inFlight: int(c.InFlight)}
	if s.inFlight == 0 {
		s.inFlight = 4 << 20
	}
	return s, nil
}

func (s *linkStage) extraCounts() map[string]int64 {
	return map[string]int64{"bytesUp": s.bytesUp.Load(), "bytesDown": s.bytesDown.Load()}
}

func (s *linkStage) active() bool {
	return !s.cfg.up().IsZero() || !s.cfg.down().IsZero() || s.cfg.Jitter > 0
}

func (s *linkStage) WrapConn(c net.Conn) net.Conn {
	if !s.active() {
		return c // nothing to delay: keep the socket (and splice)
	}
	return newLinkConn(c, s)
}

// linkConn delays what it reads (up) and what it writes (down) through two
// delay lines: a pump reads the socket into the up line, a sender writes
// the down line to the socket.
type linkConn struct {
	net.Conn
	s        *linkStage
	id       uint64
	up, down *delayQueue
	upRng    *rand.Rand // used by the pump only
	downRng  *rand.Rand // used under wmu
	wmu      sync.Mutex
	cur      chunk // partly read up chunk
	rdl      atomic.Pointer[time.Time]
	closed   atomic.Bool
	sent     chan struct{} // the sender has finished and closed the socket
	nUp      atomic.Int64
	nDown    atomic.Int64
	asked    atomic.Int64 // sum of delays asked, ns
	chunks   atomic.Int64
}

var errCloseWrite = errors.New("close write")

func newLinkConn(c net.Conn, s *linkStage) *linkConn {
	id := exchange.ConnID(c)
	lc := &linkConn{Conn: c, s: s, id: id,
		up: newDelayQueue(s.env.clock, s.inFlight), down: newDelayQueue(s.env.clock, s.inFlight),
		upRng: s.env.rng(2 * id), downRng: s.env.rng(2*id + 1), sent: make(chan struct{})}
	s.c.seen.Add(1)
	go lc.pump()
	go lc.send()
	return lc
}

// NetConn returns the socket.
func (c *linkConn) NetConn() net.Conn { return c.Conn }

func (c *linkConn) delay(d units.Dist, r *rand.Rand) time.Duration {
	v := d.Sample(r)
	if j := c.s.cfg.Jitter.D(); j > 0 {
		v += time.Duration(r.Int64N(int64(2*j)+1)) - j
	}
	c.asked.Add(int64(max(v, 0)))
	c.chunks.Add(1)
	return max(v, 0)
}

func (c *linkConn) pump() {
	upDist := c.s.cfg.up()
	for {
		bp := copybuf.Get()
		n, err := c.Conn.Read(*bp)
		now := c.s.env.clock.Now()
		if n > 0 {
			c.nUp.Add(int64(n))
			if !c.up.push(chunk{buf: bp, b: (*bp)[:n], arrival: now}, c.delay(upDist, c.upRng)) {
				copybuf.Put(bp)
				return
			}
		} else {
			copybuf.Put(bp)
		}
		if err != nil {
			c.up.push(chunk{arrival: now, end: err}, c.delay(upDist, c.upRng))
			c.up.close()
			return
		}
	}
}

func (c *linkConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	if len(c.cur.b) == 0 {
		if c.cur.buf != nil {
			copybuf.Put(c.cur.buf)
			c.cur = chunk{}
		}
		ch, ok, err := c.up.pop(c.readDeadline)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, io.EOF
		}
		if ch.end != nil {
			return 0, ch.end
		}
		c.s.c.addDelay(c.s.env.clock.Now().Sub(ch.arrival))
		c.cur = ch
	}
	n := copy(p, c.cur.b)
	c.cur.b = c.cur.b[n:]
	return n, nil
}

func (c *linkConn) readDeadline() time.Time {
	if t := c.rdl.Load(); t != nil {
		return *t
	}
	return time.Time{}
}

func (c *linkConn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(&t)
	c.up.kick()
	return nil
}

// SetDeadline sets the read deadline; see SetWriteDeadline.
func (c *linkConn) SetDeadline(t time.Time) error {
	return c.SetReadDeadline(t)
}

// SetWriteDeadline does not reach the socket: a Write here only queues
// bytes for the wire, and a deadline on the socket would drop the bytes
// still in flight — tls.Conn sets one to "now" right after its close_notify,
// which lost every response of a Connection: close request behind a link.
// Close bounds the drain instead.
func (c *linkConn) SetWriteDeadline(time.Time) error { return nil }

func (c *linkConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	now := c.s.env.clock.Now()
	d := c.delay(c.s.cfg.down(), c.downRng)
	written := 0
	for len(p) > 0 {
		bp := copybuf.Get()
		n := copy(*bp, p)
		if !c.down.push(chunk{buf: bp, b: (*bp)[:n], arrival: now}, d) {
			copybuf.Put(bp)
			return written, net.ErrClosed
		}
		c.nDown.Add(int64(n))
		written += n
		p = p[n:]
	}
	return written, nil
}

// CloseWrite passes a half-close on after the bytes ahead of it.
func (c *linkConn) CloseWrite() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	now := c.s.env.clock.Now()
	if !c.down.push(chunk{arrival: now, fin: true}, c.delay(c.s.cfg.down(), c.downRng)) {
		return net.ErrClosed
	}
	return nil
}

// CloseRead passes on at once: it sends nothing to the peer (the pump
// then reads the end).
func (c *linkConn) CloseRead() error { return socket.CloseRead(c.Conn) }

// Abort passes a reset on after the bytes ahead of it, with the way
// down's delay, then closes as Close does.
func (c *linkConn) Abort() error {
	c.wmu.Lock()
	queued := !c.closed.Load() && c.down.push(chunk{arrival: c.s.env.clock.Now(), reset: true}, c.delay(c.s.cfg.down(), c.downRng))
	c.wmu.Unlock()
	c.Close()
	if !queued {
		abortConn(c.Conn)
	}
	return nil
}

func (c *linkConn) send() {
	defer close(c.sent)
	defer c.Conn.Close()
	for {
		ch, ok, _ := c.down.pop(nil)
		if !ok {
			return
		}
		if ch.fin {
			socket.CloseWrite(c.Conn)
			continue
		}
		if ch.reset {
			abortConn(c.Conn)
			c.down.drop()
			return
		}
		_, err := c.Conn.Write(ch.b)
		copybuf.Put(ch.buf)
		if err != nil {
			c.down.drop()
			return
		}
	}
}

// Close stops reading at once; bytes already written still leave after
// their delay (as on a wire), then the socket closes.
func (c *linkConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.up.drop()
	// Bound the drain: a client that stopped reading cannot hold us.
	_ = c.Conn.SetWriteDeadline(c.s.env.clock.Now().Add(5*time.Second + c.s.cfg.down().Mean()*2))
	c.down.close()
	c.s.c.passed.Add(1)
	up, down := c.nUp.Load(), c.nDown.Load()
	c.s.c.bytes.Add(up + down)
	c.s.bytesUp.Add(up)
	c.s.bytesDown.Add(down)
	if n := c.chunks.Load(); n > 0 {
		c.s.env.record(LedgerEntry{Conn: c.id, Action: ActDelayed, Bytes: up + down,
			AskedMs: timing.Millis(time.Duration(c.asked.Load() / n)), Note: "mean one-way delay per chunk"})
	}
	return nil
}
