package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"
)

// Conn is a keep-alive connection to the next hop: R reads through its
// Read (under the deadline SetReadDue sets), W writes the requests.
type Conn struct {
	net.Conn
	R         *bufio.Reader // reads through the connection's Read
	W         *bufio.Writer
	idleSince time.Time
	// due is the read deadline the exchange wants (zero: none) and armed
	// the one on the socket; only the goroutine using the connection
	// touches them (see Read). lazy: a plain TCP connection, where an
	// early deadline can simply be armed again.
	due, armed time.Time
	lazy       bool
	// interrupted: a context ended the exchange by expiring the deadline
	// on purpose; a timeout is then real.
	interrupted atomic.Bool
}

// SetReadDue sets the read deadline of the reads that follow (zero: none).
// On a lazy connection an earlier one on the socket stays in place, and
// Read arms the socket again if it passes first: moving it for every
// request costs two timer changes and clock reads each time.
func (c *Conn) SetReadDue(t time.Time) {
	c.due = t
	if !c.lazy || !t.IsZero() && (c.armed.IsZero() || t.Before(c.armed)) {
		c.arm(t)
	}
}

// Read reads under the deadline setReadDue set: a timeout of an earlier
// deadline left on the socket arms it with that one and reads again.
func (c *Conn) Read(p []byte) (int, error) {
	for {
		n, err := c.Conn.Read(p)
		if n > 0 || !c.lazy || !errors.Is(err, os.ErrDeadlineExceeded) || c.interrupted.Load() ||
			!c.due.IsZero() && !time.Now().Before(c.due) {
			return n, err
		}
		c.arm(c.due)
	}
}

// arm sets the socket's read deadline, unless an interruption came first
// (interrupt marks, then expires: one that marks after the check below
// expires after this arming).
func (c *Conn) arm(t time.Time) {
	c.armed = t
	_ = c.Conn.SetReadDeadline(t)
	if c.interrupted.Load() {
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
	}
}

// Interrupt ends the exchange on c, from any goroutine: what it reads or
// writes fails at once, and c is not used again.
func (c *Conn) Interrupt() {
	c.interrupted.Store(true)
	_ = c.Conn.SetDeadline(time.Unix(1, 0))
}

// NewConnFrom is a connection to the next hop made elsewhere (the HTTP
// loop's), whose reads return first what was read from it before.
func NewConnFrom(nc net.Conn, buffered []byte) *Conn {
	c := &Conn{Conn: nc, W: bufio.NewWriterSize(nc, 32<<10), lazy: true}
	var r io.Reader = c
	if len(buffered) > 0 {
		r = io.MultiReader(bytes.NewReader(buffered), c)
	}
	c.R = bufio.NewReaderSize(r, 32<<10)
	return c
}
