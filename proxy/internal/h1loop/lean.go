package h1loop

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// The lean HTTP/1.1 loop serves a plain-HTTP box's connections without
// net/http's server: per client connection one goroutine reads each request
// head into a reused buffer, builds the *http.Request the stages expect
// (HTTPStage's interface is unchanged), runs the same handler chain, and the
// lean forwarder (leanforward.go) writes the request to an upstream
// keep-alive connection and copies the answer back. Profiles of net/http's
// path put the time in its per-request machinery: the background read
// goroutine started for every request, contexts, header maps cloned by
// ReverseProxy, the Transport's request and response rewriting.
//
// The loop takes only what it parses in full: an HTTP/1.1 request in
// origin-form whose head fits its 4 KiB buffer, with a single Host, a
// Content-Length body or none, and no Expect, Upgrade, Transfer-Encoding or
// Pragma. Anything else — another version, chunked or malformed requests,
// oversized heads, CONNECT, OPTIONS *, WebSocket — hands the connection, with
// the bytes already read, to the box's net/http server, which answers it as
// before (400, 431, 501, 505, 100-continue, 417 …) and keeps it. Its header
// timeouts start from the lean loop's, so a handed-over client gets no
// extra time.

// leanBufSize is the lean loop's read and write buffer per connection:
// net/http's 4 KiB, so memory per idle connection is what it was.
const leanBufSize = 4 << 10

// maxPostHandlerRead: a request body the handler left unread is drained up
// to this much so that the connection can be reused (net/http's
// maxPostHandlerReadBytes); more, and the connection closes after the reply.
const maxPostHandlerRead = 256 << 10

// rstAvoidanceDelay: closing with unread request bytes would reset the
// connection, losing the reply; the write side closes first and the close
// waits this long (net/http's value).
const rstAvoidanceDelay = 500 * time.Millisecond

// watchAfter: how long a request may wait for the next hop before the loop
// starts watching the client's connection for its end (net/http watches
// from the start of every request, a goroutine and a read each time).
// One goroutine per box, ticking at most every watchAfter and at least
// every watchTickMax, finds such requests (see waitList).
const (
	watchAfter   = time.Millisecond
	watchTickMax = 64 * time.Millisecond
)

var leanReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, leanBufSize) }}
var leanWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, leanBufSize) }}

// handoffListener hands connections from the lean loop to net/http's server.
type handoffListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// give passes c to the server; false when the box is closing.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

// handoffConn is a connection given to net/http: it reads first what the
// lean loop had buffered, and moves the first two read deadlines net/http
// sets (the request's header and whole-request deadlines, counted from
// its own start) back to the lean loop's start.
type handoffConn struct {
	net.Conn
	r      io.Reader
	shift  time.Duration
	shifts int
}

func (c *handoffConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *handoffConn) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && c.shifts < 2 {
		c.shifts++
		t = t.Add(-c.shift)
	}
	return c.Conn.SetReadDeadline(t)
}

// NetConn returns the connection under it, for exchange.ConnID and abortConn.
func (c *handoffConn) NetConn() net.Conn { return c.Conn }

// leanConn is one client connection on the lean loop.
type leanConn struct {
	e      *Engine
	c      net.Conn
	cr     connReader
	br     *bufio.Reader
	bw     *bufio.Writer
	id     uint64
	fd     int // the client's socket, for the waitList's poll (-1: none)
	remote string
	head   []byte      // the upstream request head, rebuilt for each request
	header http.Header // the request's header, reused (headerFor)
	vals   []string    // … and its values' backing array
	resp   []byte      // the answer's header lines passed on
	ctx    *leanCtx    // the request being served
	w      *leanWriter // … and its writer
	// idleArmed: the socket's read deadline is an idle one (waitNext's)
	// that nothing has replaced since.
	idleArmed bool
	// remoteHost: remote without its port (X-Forwarded-For), if it splits.
	remoteHost    string
	hasRemoteHost bool
}

// serveLean runs the lean loop on one accepted connection.
func (e *Engine) serveLean(c net.Conn) { e.serveLeanFrom(c, time.Now()) }

// serveLeanFrom runs the lean loop on c, whose first request began at t0
// (its header deadline counts from then).
func (e *Engine) serveLeanFrom(c net.Conn, t0 time.Time) {
	defer e.cfg.WG.Done()
	lc := e.newLeanConn(c)
	lc.end(lc.loop(t0, false))
}

// resumeLean serves on the lean loop a client whose request the HTTP loop
// sent to the next hop on up (its head, its id, the headers the stages
// set on it), and whose answer the loop leaves to the lean forwarder:
// read with net/http as the lean forwarder reads such answers. Then the
// connection's next requests.
func (e *Engine) resumeLean(c net.Conn, head []byte, req uint64, stage http.Header, up *upstream.Conn, t0 time.Time) {
	defer e.cfg.WG.Done()
	lc := e.newLeanConn(c)
	r, err := lc.parse(head, req)
	if err != nil { // it parsed on the loop
		up.Close()
		lc.end(false)
		return
	}
	lc.ctx.deadline = t0.Add(e.cfg.Limits.Read)
	keep := lc.serve(r, func(w http.ResponseWriter, r *http.Request, ex *exchange.Exchange) {
		if e.cfg.ServerTiming {
			w = &exchange.TimingWriter{ResponseWriter: w, Ex: ex, Desc: e.cfg.Desc}
		}
		for k, vs := range stage {
			w.Header()[k] = vs
		}
		lc.ctx.interruptOnCancel(up)
		ex.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			e.fwd.respondThrough(w, r, up, lc.ctx.release)
		}), w, r)
	})
	lc.end(keep && lc.loop(time.Time{}, true))
}

// newLeanConn makes the lean loop's state for c.
func (e *Engine) newLeanConn(c net.Conn) *leanConn {
	lc := &leanConn{e: e, c: c, id: exchange.ConnID(c), fd: socket.FD(c), remote: c.RemoteAddr().String()}
	host, _, err := net.SplitHostPort(lc.remote)
	lc.remoteHost, lc.hasRemoteHost = host, err == nil
	lc.cr.init(c)
	lc.br = leanReaders.Get().(*bufio.Reader)
	lc.br.Reset(&lc.cr)
	lc.bw = leanWriters.Get().(*bufio.Writer)
	lc.bw.Reset(c)
	return lc
}

// end ends the lean loop on its connection: closed, unless it was handed
// to net/http (buffers and all).
func (lc *leanConn) end(handedOff bool) {
	lc.e.cfg.Conns.Untrack(lc.c)
	if handedOff {
		return
	}
	lc.c.Close()
	lc.bw.Reset(nil)
	leanWriters.Put(lc.bw)
	lc.br.Reset(nil)
	leanReaders.Put(lc.br)
}

// loop serves requests until the connection ends; true when it was handed
// to net/http instead. The first request began at t0; with waitFirst the
// loop waits for it first, as between requests.
func (lc *leanConn) loop(t0 time.Time, waitFirst bool) (handedOff bool) {
	e := lc.e
	for first := true; ; first = false {
		if !first || waitFirst {
			if !lc.waitNext(time.Now(), IdleTimeout) {
				return false
			}
			t0 = time.Now()
		}
		req, n, ok, err := lc.readRequest(t0)
		if err != nil {
			return false // EOF, reset or timeout before a whole head: no answer, as net/http
		}
		if !ok {
			return lc.handOff(time.Since(t0))
		}
		_, _ = lc.br.Discard(n)
		// The whole-request deadline, for what reads the client from here
		// on: the body, or the watch (which sets it itself when it starts).
		lc.ctx.deadline = t0.Add(e.cfg.Limits.Read)
		if req.ContentLength > 0 {
			lc.setReadDeadline(t0.Add(e.cfg.Limits.Read))
		}
		if !lc.serve(req, e.cfg.Handle) {
			return false
		}
	}
}

// waitNext waits for the next request's first byte, limit from
// idleStart at most. The deadline on the socket may be the idle one of an
// earlier request, still in place: re-arming it for each request costs a
// timer change and two clock reads, so it is re-armed only when something
// else has set another, or when it passes before this wait's own (the
// wait then goes on to that).
func (lc *leanConn) waitNext(idleStart time.Time, limit time.Duration) bool {
	if !lc.idleArmed {
		lc.setReadDeadline(idleStart.Add(limit))
		lc.idleArmed = true
	}
	for {
		_, err := lc.br.Peek(1)
		if err == nil {
			return true
		}
		due := idleStart.Add(limit)
		if !errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(due) {
			return false
		}
		_ = lc.c.SetReadDeadline(due)
	}
}

// setReadDeadline sets the client's read deadline for what the loop reads
// next: the rest of a head, a body, the wait for the next request.
func (lc *leanConn) setReadDeadline(t time.Time) {
	lc.idleArmed = false
	_ = lc.c.SetReadDeadline(t)
}

// handOff gives the connection to net/http; false when the box closes.
func (lc *leanConn) handOff(elapsed time.Duration) bool {
	hc := &handoffConn{Conn: lc.c, r: lc.br, shift: elapsed}
	if !lc.e.handoff.give(hc) {
		return false
	}
	return true
}

// serve runs one request through handle (the stages and the forwarder:
// Config.Handle); false when the connection must close (or was taken by a
// stage).
func (lc *leanConn) serve(r *http.Request, handle func(http.ResponseWriter, *http.Request, *exchange.Exchange)) (keep bool) {
	ctx := lc.ctx
	w := ctx.newWriter(r)
	lc.w = w
	defer func() {
		lc.w = nil
		ctx.cancel() // first: no watch starts after it
		if lc.cr.abortPendingRead() {
			lc.idleArmed = false // a watch read under its own deadline
		}
		if v := recover(); v != nil {
			keep = false
			if v != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				lc.e.cfg.Log.Printf("http: panic serving %v: %v\n%s", lc.remote, v, buf)
			}
			if !w.hijacked {
				_ = lc.bw.Flush()
			}
		}
	}()
	handle(w, r, ctx.ex)
	if w.hijacked {
		return false
	}
	w.finish()
	if w.err != nil || ctx.Err() != nil {
		return false
	}
	if w.closeAfter {
		if w.unreadBody {
			socket.CloseWrite(lc.c)
			time.Sleep(rstAvoidanceDelay)
		}
		return false
	}
	return true
}

// errHandOff: the request is one the lean loop does not take.
var errHandOff = errors.New("hand off")

// readRequest reads a request head; ok false means: hand the connection
// over (nothing consumed). n is the head's length in the buffer. The
// header deadline (readHeaderTimeout from t0) is set before the first wait
// for bytes: a head that came whole with its first read needs none.
func (lc *leanConn) readRequest(t0 time.Time) (req *http.Request, n int, ok bool, err error) {
	arm := func() { lc.setReadDeadline(t0.Add(lc.e.cfg.Limits.ReadHeader)) }
	head, whole, err := peekHead(lc.br, arm)
	if err != nil {
		return nil, 0, false, err // a partial head, then EOF, a reset or the timeout: no answer, as net/http
	}
	if !whole {
		return nil, 0, false, nil // a head larger than the buffer, or lines ended by LF alone: net/http's rules apply
	}
	req, err = lc.parse(head, 0)
	if errors.Is(err, errConflictingFraming) {
		lc.refuseFraming(err)
		return nil, 0, false, err
	}
	if err != nil {
		return nil, 0, false, nil
	}
	return req, len(head), true, nil
}

// refuseFraming answers a request whose framing is ambiguous 400 with
// Connection: close, counted and recorded; the loop then closes (its
// write side first, and the close waits as net/http's does, so that the
// unread bytes behind the head do not reset the answer away).
func (lc *leanConn) refuseFraming(err error) {
	lc.e.cfg.BadRequest(&exchange.Exchange{Conn: lc.id}, http.StatusBadRequest,
		"request with "+err.Error()+" (RFC 9112 §6.1): answered 400 and closed")
	msg := "middlebench box: bad request: " + err.Error() + "\n"
	_, _ = lc.bw.WriteString("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(msg)) + "\r\n\r\n" + msg)
	if lc.bw.Flush() == nil {
		socket.CloseWrite(lc.c)
		time.Sleep(rstAvoidanceDelay)
	}
}
