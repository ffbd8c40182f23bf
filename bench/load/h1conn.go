package load

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"syscall"
	"time"

	"github.com/middlebench/middlebench/internal/h1"
)

// h1HeadLimit bounds the response heads of one exchange (1xx included):
// net/http's default MaxResponseHeaderBytes.
const h1HeadLimit = 10 << 20

var errHeadTooLarge = errors.New("response headers exceeded 10485760 bytes; aborted")

// h1client is one VU's lean HTTP/1.1 client for plain-HTTP targets: one
// keep-alive connection to the engine's one address, written and read by
// the VU's own goroutine. net/http's transport runs a read and a write
// goroutine per connection and hands every request and response between
// them and the caller; here nothing is handed over, and every moment the
// tracer records is taken at the same point of the exchange as net/http
// takes it (see exchange).
type h1client struct {
	addr        string
	dial        dialFunc
	noKeepAlive bool // the transport's DisableKeepAlives: close after each response

	conn net.Conn
	src  h1Source
	br   *bufio.Reader
	head h1Head
	body h1Body
	reqs map[string]*http.Request // per method, for http.ReadResponse
	// lastByte is when the last response began (clock ns): a connection
	// idle for longer than h1IdlePeek is peeked at before it is reused.
	lastByte int64

	// abort (from a context's AfterFunc) ends a blocked read or write by
	// the connection's deadline; gen tells a stale AfterFunc from the
	// current one, busy an exchange from an idle connection.
	mu        sync.Mutex // guards conn (for abort), busy, aborted, gen
	busy      bool
	aborted   bool
	gen       uint64
	stopWatch func() bool
}

// h1Source is the connection as the read buffer sees it: at most
// h1HeadLimit bytes while heads are read, as net/http's readLimit; and
// the request to write before the next read (head), written with that
// read in one wait when the descriptor is at hand (rawSendRead).
type h1Source struct {
	c     net.Conn
	raw   syscall.RawConn // nil: write and read through c
	count *ioCount        // what c would count, for raw writes and reads
	left  int64
	head  []byte // to write before the next read; nil once written
	wrote int    // bytes of head written

	// rawSendRead's state, kept here so that its callback (step, a
	// method value made once) allocates nothing per request.
	step       func(fd uintptr) bool
	p          []byte
	sent       bool
	n          int
	rerr, werr error
}

func (s *h1Source) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	var n int
	var err error
	switch {
	case s.head != nil && s.raw != nil:
		n, err = s.rawSendRead(p)
	case s.head != nil:
		head := s.head
		s.head = nil
		if s.wrote, err = s.c.Write(head); err == nil {
			n, err = s.c.Read(p)
		}
	default:
		n, err = s.c.Read(p)
	}
	s.left -= int64(n)
	return n, err
}

func newH1Client(addr string, dial dialFunc, count *ioCount, noKeepAlive bool) *h1client {
	c := &h1client{addr: addr, dial: dial, noKeepAlive: noKeepAlive, reqs: map[string]*http.Request{}}
	c.src.count = count
	c.src.step = c.src.rawStep
	return c
}

// watch makes ctx's end abort the exchange in progress (a timeout cancels
// the request context; a hard stop its parent).
func (c *h1client) watch(ctx context.Context) {
	c.mu.Lock()
	c.gen++
	g := c.gen
	c.mu.Unlock()
	if c.stopWatch != nil {
		c.stopWatch()
	}
	c.stopWatch = context.AfterFunc(ctx, func() { c.abort(g) })
}

func (c *h1client) abort(g uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g == c.gen && c.busy && c.conn != nil {
		c.aborted = true
		c.conn.SetDeadline(time.Unix(1, 0))
	}
}

// h1IdlePeek: a connection idle this long (think time, pacing) is checked
// with a non-blocking peek before reuse, as net/http's background reader
// would have found a close by then; back-to-back requests skip the
// syscall, and a close found by the request itself is retried.
const h1IdlePeek = int64(time.Millisecond)

// exchange sends head and reads the response head, recording on trc the
// moments net/http's transport reports: GetConn first; ConnectStart and
// ConnectDone from the dialer itself (net's trace hooks travel in ctx, as
// they do from net/http); GotConn with the connection; WroteRequest once
// the request is ready to go out (net/http calls it when the request is
// in its 4 KiB write buffer, before the flush's write syscall, and a lean
// head fits that buffer: renderHead; the write itself is made by the
// first read, h1Source.Read); GotFirstResponseByte when the first byte is
// in. A reused connection that the server closed meanwhile
// (nothing written, or nothing read back) is replaced by a new one for the
// same request, as net/http retries a replayable request; the tracer then
// forgets the dead attempt but its GetConn, as if net/http's background
// reader had dropped the connection before the request.
//
// It returns the response head and body; the caller reads the body and
// calls release, also after an error.
func (c *h1client) exchange(ctx context.Context, trc *tracer, method string, head []byte) (*h1Head, io.Reader, error) {
	c.mu.Lock()
	c.busy, c.aborted = true, false
	c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	trc.onGetConn(c.addr)
	if c.conn != nil && (c.br.Buffered() > 0 || (trc.getConn.Load()-c.lastByte > h1IdlePeek && c.src.closedWhileIdle())) {
		c.closeConn() // closed, or bytes nobody asked for: net/http's reader would have dropped it
	}
	for {
		reused := c.conn != nil
		if !reused {
			if err := c.connect(ctx); err != nil {
				return nil, nil, err
			}
		}
		trc.onGotConn(httptrace.GotConnInfo{Conn: c.conn, Reused: reused})
		trc.onWroteRequest(httptrace.WroteRequestInfo{})
		c.src.left = h1HeadLimit
		c.src.head, c.src.wrote = head, 0 // written by the read below
		_, err := c.br.Peek(1)
		if err == nil {
			trc.onFirstByte()
			c.lastByte = trc.firstByte.Load()
			break
		}
		c.closeConn()
		// A request written in part is not re-sent (net/http's rule).
		if !reused || (c.src.wrote > 0 && c.src.wrote < len(head)) || ctx.Err() != nil {
			return nil, nil, err
		}
		trc.retry()
	}
	h, body, err := c.readHead(method)
	c.src.left = math.MaxInt64
	return h, body, err
}

// readHead parses the head once it is in the buffer (parseHead), else
// with net/http's parser, and returns the body to read. A head whose lines
// end with LF alone never shows the CRLFCRLF waited for: it goes to
// net/http's parser as soon as one is seen, not when the timeout ends the
// wait.
func (c *h1client) readHead(method string) (*h1Head, io.Reader, error) {
	for {
		buf, _ := c.br.Peek(c.br.Buffered())
		if n := h1.HeadEnd(buf); n > 0 {
			if !parseHead(buf[:n], &c.head) {
				break
			}
			c.br.Discard(n)
			h := &c.head
			c.body = h1Body{br: c.br, left: h.length}
			switch {
			case bodyless(method, h.status):
				c.body.left = 0
			case h.length < 0:
				h.close = true // the body ends with the connection
			}
			return h, &c.body, nil
		}
		if c.br.Buffered() == c.br.Size() || h1.HasBareLF(buf) {
			break // a long head, or one net/http's parser reads
		}
		if _, err := c.br.Peek(c.br.Buffered() + 1); err != nil {
			break // net/http's parser reports it as net/http does
		}
	}
	req := c.reqs[method]
	if req == nil {
		req = &http.Request{Method: method}
		c.reqs[method] = req
	}
	body, err := slowHead(c.br, req, &c.head)
	if err != nil {
		return nil, nil, err
	}
	return &c.head, body, nil
}

func (c *h1client) connect(ctx context.Context) error {
	conn, err := c.dial(ctx, "tcp", c.addr)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	c.src.c, c.src.raw = conn, rawOf(conn)
	if c.br == nil {
		c.br = bufio.NewReaderSize(&c.src, 4096)
	} else {
		c.br.Reset(&c.src)
	}
	if err := ctx.Err(); err != nil { // ended during the dial, before abort could see the connection
		c.closeConn()
		return err
	}
	return nil
}

// release ends an exchange: the connection stays for the next request
// when the response was read whole and neither side asked to close.
func (c *h1client) release(ok bool) {
	c.mu.Lock()
	c.busy = false
	keep := ok && !c.aborted && !c.head.close && !c.noKeepAlive
	c.mu.Unlock()
	if !keep {
		c.closeConn()
	}
}

func (c *h1client) closeConn() {
	c.mu.Lock()
	conn := c.conn
	c.conn = nil
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// close ends the client: no more aborts, no connection.
func (c *h1client) close() {
	if c.stopWatch != nil {
		c.stopWatch()
	}
	c.closeConn()
}
