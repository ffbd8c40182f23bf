package h1loop

import (
	"context"
	"errors"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// leanCtx is a lean request's context: cancelled when the request ends or
// its client leaves, and carrying the exchange and the connection id that
// net/http's path keeps in context values. Watching the client costs a
// goroutine and a read, so it starts only when someone waits on Done (a
// stage's delay) or the next hop is slow to answer (watchAfter), and only
// once the request's body has been read, as net/http's background read.
type leanCtx struct {
	lc   *leanConn
	ex   *exchange.Exchange
	body *leanBody // nil without a body

	mu       sync.Mutex
	done     chan struct{}
	err      error
	bodyDone bool // the body was read to its end (or there is none)
	wantWait bool // watch once the body is done
	watching bool
	upstream *upstream.Conn // interrupted when the context ends
	ended    atomic.Bool    // err is set (Err)
	// deadline: the request's whole-request deadline, set before the
	// context is shared; the watch reads under it (a handler still running
	// at readTimeout sees its context end, as in net/http).
	deadline time.Time
	wait     waitLink // its place in the box's waitList (under the list's lock)

	// The request's exchange and writer live in the same allocation (one
	// per request instead of three); ex and the writer point into it.
	exchange exchange.Exchange
	writer   leanWriter
	url      url.URL // the request's, when its target is a plain path
}

// newLeanCtx makes request req's context on lc, with its exchange.
func newLeanCtx(lc *leanConn, req uint64) *leanCtx {
	c := &leanCtx{lc: lc, exchange: exchange.Exchange{Conn: lc.id, Req: req}}
	c.ex = &c.exchange
	lc.cr.mu.Lock()
	lc.cr.ctx = c
	lc.cr.mu.Unlock()
	return c
}

func (c *leanCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (c *leanCtx) Done() <-chan struct{} {
	c.mu.Lock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	d := c.done
	c.mu.Unlock()
	c.watch()
	return d
}

// Err reads ended, not err under the lock: it is asked several times per
// request, and only ever becomes context.Canceled.
func (c *leanCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return nil
}

func (c *leanCtx) Value(key any) any {
	switch key.(type) {
	case exchange.Key:
		return c.ex
	case exchange.ConnKey:
		return c.lc.id
	}
	return nil
}

// watch starts the client watch now, or when the body has been read. It
// starts under c.mu, so that once cancel has run none starts.
func (c *leanCtx) watch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.watching || c.err != nil:
	case c.bodyDone:
		c.watching = true
		c.lc.cr.startBackgroundRead(c.deadline)
	default:
		c.wantWait = true
	}
}

// bodyEOF: the body was read to its end; a watch asked for meanwhile starts.
func (c *leanCtx) bodyEOF() {
	c.mu.Lock()
	c.bodyDone = true
	want := c.wantWait
	c.mu.Unlock()
	if want {
		c.watch()
	}
}

// cancel ends the context (the client left, or the request is over).
func (c *leanCtx) cancel() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = context.Canceled
	c.ended.Store(true)
	if c.done != nil {
		close(c.done)
	}
	up := c.upstream
	c.upstream = nil
	c.mu.Unlock()
	if up != nil {
		up.Interrupt()
	}
}

// interruptOnCancel has up's exchange interrupted when the context ends
// (at once if it has).
func (c *leanCtx) interruptOnCancel(up *upstream.Conn) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		up.Interrupt()
		return
	}
	c.upstream = up
	c.mu.Unlock()
}

// release undoes interruptOnCancel; false when the context ended first
// (the deadline is then expired).
func (c *leanCtx) release() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	had := c.upstream != nil
	c.upstream = nil
	return had
}

// connReader is the client connection under the lean loop's bufio.Reader:
// it can hand the socket to a background read that notices the client
// leaving while a request is served (net/http's connReader, same rules: a
// byte read meanwhile is kept for the next request and cancels nothing).
type connReader struct {
	conn    net.Conn
	mu      sync.Mutex
	cond    *sync.Cond
	ctx     *leanCtx // the request being served
	hasByte bool
	byteBuf [1]byte
	inRead  bool
	aborted bool
	tookDL  bool // a watch set the socket's read deadline (abortPendingRead)
}

func (cr *connReader) init(c net.Conn) {
	cr.conn = c
	cr.cond = sync.NewCond(&cr.mu)
}

func (cr *connReader) Read(p []byte) (int, error) {
	cr.mu.Lock()
	if cr.inRead {
		cr.mu.Unlock()
		panic("proxy: concurrent read on a lean connection")
	}
	if len(p) == 0 {
		cr.mu.Unlock()
		return 0, nil
	}
	if cr.hasByte {
		p[0] = cr.byteBuf[0]
		cr.hasByte = false
		cr.mu.Unlock()
		return 1, nil
	}
	cr.inRead = true
	cr.mu.Unlock()
	n, err := cr.conn.Read(p)
	cr.mu.Lock()
	cr.inRead = false
	ctx := cr.ctx
	cr.mu.Unlock()
	if err != nil && ctx != nil {
		ctx.cancel() // net/http's handleReadError
	}
	return n, err
}

func (cr *connReader) startBackgroundRead(deadline time.Time) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.inRead || cr.hasByte {
		return
	}
	cr.inRead = true
	cr.tookDL = true
	_ = cr.conn.SetReadDeadline(deadline)
	go cr.backgroundRead()
}

func (cr *connReader) backgroundRead() {
	n, err := cr.conn.Read(cr.byteBuf[:])
	cr.mu.Lock()
	if n == 1 {
		cr.hasByte = true
	}
	var ne net.Error
	if cr.aborted && (err == nil || errors.As(err, &ne) && ne.Timeout()) {
		// the loop stopped the watch: not the client's doing
	} else if err != nil && cr.ctx != nil {
		ctx := cr.ctx
		cr.mu.Unlock()
		ctx.cancel()
		cr.mu.Lock()
	}
	cr.aborted = false
	cr.inRead = false
	cr.mu.Unlock()
	cr.cond.Broadcast()
}

// abortPendingRead stops a background read and waits for it to end;
// tookDeadline: a watch has set the socket's read deadline since the last
// call.
func (cr *connReader) abortPendingRead() (tookDeadline bool) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	tookDeadline, cr.tookDL = cr.tookDL, false
	if !cr.inRead {
		cr.ctx = nil
		return tookDeadline
	}
	cr.aborted = true
	_ = cr.conn.SetReadDeadline(time.Unix(1, 0))
	for cr.inRead {
		cr.cond.Wait()
	}
	_ = cr.conn.SetReadDeadline(time.Time{})
	cr.ctx = nil
	return tookDeadline
}
