package proxy

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// exchange is one request's passage through a box: its ids and the time
// each stage added, for the ledger and the optional Server-Timing entries.
type exchange struct {
	conn, req uint64
	timings   []stageTiming
	body      *clientBody // the request's body as read from the client; nil without one
	abort     bool        // the client left: abort its connection rather than answer
	answer    answerWriter
}

type stageTiming struct {
	name string
	dur  time.Duration
}

type exchangeKey struct{}
type connKey struct{}

func exchangeFrom(ctx context.Context) *exchange {
	if ex, ok := ctx.Value(exchangeKey{}).(*exchange); ok {
		return ex
	}
	return &exchange{}
}

// addTiming notes that a stage added d (only read when ledgerHeader is on).
func (ex *exchange) addTiming(name string, d time.Duration) {
	ex.timings = append(ex.timings, stageTiming{name, d})
}

// timingWriter appends the box's Server-Timing entries to the response
// header, after the upstream's own, just before the header is written.
type timingWriter struct {
	http.ResponseWriter
	ex   *exchange
	desc string
	done bool
}

func (w *timingWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if len(w.ex.timings) > 0 {
			h := w.Header()
			buf := make([]byte, 0, 64)
			if vs := h.Values("Server-Timing"); len(vs) > 0 {
				buf = append(buf, vs[len(vs)-1]...)
			}
			for _, t := range w.ex.timings {
				if len(buf) > 0 {
					buf = append(buf, ", "...)
				}
				buf = append(buf, t.name...)
				buf = append(buf, ";dur="...)
				buf = strconv.AppendFloat(buf, timing.Millis(t.dur), 'f', 1, 64)
				buf = append(buf, `;desc="`...)
				buf = append(buf, w.desc...)
				buf = append(buf, '"')
			}
			if vs := h["Server-Timing"]; len(vs) > 0 {
				vs[len(vs)-1] = string(buf)
			} else {
				h.Set("Server-Timing", string(buf))
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *timingWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *timingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// trackedConn is an accepted connection with the box's id for it.
type trackedConn struct {
	net.Conn
	id     uint64
	closed atomic.Bool
	onDone func()
}

func (c *trackedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) && c.onDone != nil {
		c.onDone()
	}
	return c.Conn.Close()
}

// NetConn returns the socket.
func (c *trackedConn) NetConn() net.Conn { return c.Conn }

// CloseWrite, CloseRead and Abort pass the connection's ends to the
// socket (connend.go).
func (c *trackedConn) CloseWrite() error { return closeWrite(c.Conn) }

func (c *trackedConn) CloseRead() error { return closeRead(c.Conn) }

func (c *trackedConn) Abort() error {
	noLinger(c.Conn)
	return c.Close()
}

// connID finds the box's id of a connection through the stages' wrappers.
func connID(c net.Conn) uint64 {
	for range 16 {
		switch v := c.(type) {
		case *trackedConn:
			return v.id
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return 0
		}
	}
	return 0
}

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
	tc := &trackedConn{Conn: c, id: l.b.connSeq.Add(1), onDone: func() { l.b.active.Add(-1); <-l.slots }}
	return tc, nil
}

func (l *trackListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}
