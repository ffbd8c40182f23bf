//go:build linux

package h1loop

import (
	"errors"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/internal/h1"
	"github.com/middlebench/middlebench/proxy/internal/deadline"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// loopClient is one client connection on the HTTP loop.
type loopClient struct {
	fd            int
	gen           int32
	tc            *exchange.Tracked
	id            uint64
	remote        string
	remoteHost    string // remote without its port (X-Forwarded-For), if it splits
	hasRemoteHost bool

	in      *[]byte // what was read, (*in)[r:w] not yet served
	r, w    int
	head    int    // the length of the request head at in[r:] while its answer is under way
	pending []byte // answer bytes the socket has not taken yet
	events  uint32 // what the set watches for
	eof     bool   // the client ended its side while its answer went out: not read any more
	state   clientState
	gone    bool // ended, or handed to a goroutine

	// The request being served.
	t0         time.Time // when it began (zero: none has)
	reqID      uint64
	method     string
	closeReq   bool        // Connection: close
	closeAfter bool        // the connection closes after the answer
	upHead     []byte      // its head as the next hop gets it
	stageHdr   http.Header // headers the stages set on a passed request (RateLimit …), for the answer
	up         *loopUp     // the connection to the next hop it went on
	dialing    bool        // a connection is being dialed for it

	// tClient: the head's deadline, or the idle one between requests;
	// tRead and tResp while the answer is awaited.
	tClient, tRead, tResp deadline.Item
}

type clientState uint8

const (
	clientIdle      clientState = iota // between requests, or reading a head
	clientWaiting                      // the request goes to the next hop, no answer yet
	clientAnswering                    // the next hop's answer is copied to the client
	clientClosing                      // the last answer goes out, then the connection closes
)

// loopInPool holds the clients' read buffers (the lean loop's size: a head
// that does not fit is handed over, as the lean loop hands it to net/http).
var loopInPool = sync.Pool{New: func() any { b := make([]byte, leanBufSize); return &b }}

func newLoopClient(lp *httpLoop, fd int, tc *exchange.Tracked) *loopClient {
	c := &loopClient{fd: fd, tc: tc, id: tc.ID, remote: tc.RemoteAddr().String()}
	host, _, err := net.SplitHostPort(c.remote)
	c.remoteHost, c.hasRemoteHost = host, err == nil
	c.tClient.Fire = func() { lp.endClient(c) } // no head, or idle too long: closed without an answer, as net/http
	c.tRead.Fire = func() { lp.clientGone(c) }  // the whole request's time is up: as the lean loop's watch
	// The next hop's silence past responseHeaderTimeout: 504.
	c.tResp.Fire = func() {
		if u := c.up; u != nil {
			lp.upFailed(u, u.opError("read", errTimeout))
		}
	}
	return c
}

// admit registers a client taken from the queue: its first head is due
// readHeaderTimeout from now.
func (lp *httpLoop) admit(c *loopClient) {
	c.in = loopInPool.Get().(*[]byte)
	c.gen = lp.register(c.fd, c, nil)
	c.t0 = lp.now
	lp.setDeadline(&c.tClient, qHeader, c.t0, lp.e.cfg.Limits.ReadHeader)
	lp.watch(c)
}

// watch sets what the set waits for on c: readable while there is room
// and the client has not ended its side, writable while bytes wait.
func (lp *httpLoop) watch(c *loopClient) {
	if c.gone {
		return
	}
	var want uint32
	if !c.eof && c.w < len(*c.in) {
		want |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if len(c.pending) > 0 {
		want |= unix.EPOLLOUT
	}
	if want == c.events {
		return
	}
	if err := lp.Set.Ctl(c.fd, c.gen, c.events, want); err != nil {
		lp.clientLost(c)
		return
	}
	c.events = want
}

func (lp *httpLoop) clientEvent(c *loopClient, ev uint32) {
	if ev&unix.EPOLLOUT != 0 && len(c.pending) > 0 {
		lp.flushPending(c)
	}
	if c.gone || ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
		return
	}
	if c.eof || c.w == len(*c.in) {
		// Not reading: only a hang-up or an error brings this.
		if ev&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			lp.clientLost(c)
		}
		return
	}
	n, err := lp.Set.Read(c.fd, (*c.in)[c.w:])
	switch {
	case errors.Is(err, unix.EAGAIN):
		return
	case err != nil:
		lp.clientLost(c)
		return
	case n == 0:
		lp.clientEnded(c)
		return
	}
	c.w += n
	if c.state == clientIdle {
		lp.serveNext(c)
		return
	}
	lp.watch(c) // a byte of the next request is kept for it (net/http's background read does the same)
}

// clientEnded acts on the client's end of its side (EOF).
func (lp *httpLoop) clientEnded(c *loopClient) {
	switch c.state {
	case clientWaiting:
		lp.clientGone(c)
	case clientAnswering, clientClosing:
		c.eof = true // the answer still goes out (a write fails if the client is gone), then the connection closes
		lp.watch(c)
	default:
		if len(c.pending) > 0 { // an answer still goes out, then the connection closes
			c.eof, c.state = true, clientClosing
			lp.watch(c)
			return
		}
		lp.endClient(c) // between requests or mid-head: closed without an answer, as net/http
	}
}

// clientLost acts on a client whose socket failed (a reset) or hung up.
func (lp *httpLoop) clientLost(c *loopClient) {
	if c.state == clientWaiting {
		lp.clientGone(c)
		return
	}
	lp.endClient(c)
}

// clientGone ends a client that left before its answer began: counted,
// and its exchange with the next hop called off.
func (lp *httpLoop) clientGone(c *loopClient) {
	lp.e.cfg.ClientGone()
	lp.endClient(c)
}

// serveNext serves the requests read from c, one at a time: while c is
// between requests and its last answer has gone out.
func (lp *httpLoop) serveNext(c *loopClient) {
	for c.state == clientIdle && !c.gone && len(c.pending) == 0 {
		in := *c.in
		buf := in[c.r:c.w]
		if len(buf) == 0 {
			c.r, c.w = 0, 0
			break
		}
		if c.t0.IsZero() {
			c.t0 = lp.now
		}
		n := h1.HeadEnd(buf)
		if n > 0 {
			lp.serve(c, buf[:n])
			continue
		}
		if len(buf) == len(in) || h1.HasBareLF(buf) {
			lp.handOff(c) // a head larger than the buffer, or lines ended by LF alone: net/http's rules apply
			return
		}
		if c.r > 0 {
			c.w = copy(in, buf)
			c.r = 0
		}
		if !c.tClient.In(&lp.queues[qHeader]) {
			lp.setDeadline(&c.tClient, qHeader, c.t0, lp.e.cfg.Limits.ReadHeader)
		}
		break
	}
	if c.eof && c.state == clientIdle && len(c.pending) == 0 {
		lp.endClient(c) // the client ended its side and has its answers: a head it began will not end
		return
	}
	lp.watch(c)
}

// serve runs one request whose whole head is raw: through the stages on
// the loop when each decides it at once, else on a goroutine.
func (lp *httpLoop) serve(c *loopClient, raw []byte) {
	sc := &lp.sc
	p, err := sc.parse(raw)
	if err != nil || p.cl > 0 {
		lp.handOff(c) // a body, or a request the lean parser leaves to net/http
		return
	}
	r := sc.request(c, p)
	if !lp.e.cfg.Instant(r) {
		lp.handOff(c)
		return
	}
	c.tClient.Clear()
	lp.served++
	c.head = len(raw)
	c.reqID = lp.e.cfg.ReqSeq.Add(1)
	c.method, c.closeReq = p.method, p.close
	sc.ctx.reset(c)
	w := sc.writer(r, nil)
	if !lp.run(w, r) {
		// A panic: what was written goes out, then the connection closes (the lean loop's rule).
		lp.finishAnswer(c, sc.flush(), true)
		return
	}
	if sc.ctx.passed {
		c.stageHdr = nil
		if len(sc.hdr) > 0 {
			c.stageHdr = sc.hdr.Clone()
		}
		c.state = clientWaiting
		lp.setDeadline(&c.tRead, qRead, c.t0, lp.e.cfg.Limits.Read)
		lp.forward(c)
		return
	}
	w.finish()
	lp.finishAnswer(c, sc.flush(), w.closeAfter || w.hijacked)
}

// run runs the box's handler chain for r; false when it panicked.
func (lp *httpLoop) run(w *leanWriter, r *http.Request) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			if v != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				lp.e.cfg.Log.Printf("http: panic serving %v: %v\n%s", r.RemoteAddr, v, buf)
			}
		}
	}()
	lp.e.cfg.Handle(w, r, &lp.sc.ctx.ex)
	return true
}

// finishAnswer sends the rest of an answer, out, and ends the request:
// the connection closes once it has gone out, or waits for the next one.
func (lp *httpLoop) finishAnswer(c *loopClient, out []byte, closeAfter bool) {
	c.r += c.head
	c.head, c.t0, c.up = 0, time.Time{}, nil
	c.state = clientIdle
	lp.send(c, out)
	if c.gone {
		return
	}
	if closeAfter {
		c.state = clientClosing
		if len(c.pending) == 0 {
			lp.endClient(c)
		}
		return
	}
	lp.setDeadline(&c.tClient, qIdle, lp.now, IdleTimeout)
	lp.serveNext(c)
}

// send writes p to the client; what its socket does not take yet waits
// in c.pending, which then goes first.
func (lp *httpLoop) send(c *loopClient, p []byte) {
	defer lp.sc.reset()
	if len(p) == 0 || c.gone {
		return
	}
	if len(c.pending) > 0 {
		c.pending = append(c.pending, p...)
		return
	}
	n, err := lp.Set.Write(c.fd, p)
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		lp.clientLost(c)
		return
	}
	if n < len(p) {
		c.pending = append(c.pending, p[n:]...)
		lp.watch(c)
	}
}

// flushPending writes what waits for the client; once all has gone, what
// waited for it goes on.
func (lp *httpLoop) flushPending(c *loopClient) {
	n, err := lp.Set.Write(c.fd, c.pending)
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		lp.clientLost(c)
		return
	}
	if c.pending = c.pending[n:]; len(c.pending) > 0 {
		return
	}
	c.pending = nil
	lp.watch(c)
	switch c.state {
	case clientClosing:
		lp.endClient(c)
	case clientAnswering:
		lp.resume(c)
	case clientIdle:
		lp.serveNext(c)
	}
}

// endClient closes c and everything it holds.
func (lp *httpLoop) endClient(c *loopClient) {
	if c.gone {
		return
	}
	lp.detachClient(c)
	lp.forget(c.fd)
	lp.e.cfg.Conns.Untrack(c.tc)
	c.tc.Close()
	lp.e.cfg.WG.Done()
}

// detachClient takes c out of the loop (its descriptor stays open): its
// deadlines, its connection to the next hop (closed: an exchange under
// way cannot be reused), its buffers.
func (lp *httpLoop) detachClient(c *loopClient) {
	c.gone = true
	c.tClient.Clear()
	c.tRead.Clear()
	c.tResp.Clear()
	if c.up != nil {
		lp.closeUp(c.up)
		c.up = nil
	}
	if c.events != 0 {
		_ = lp.Set.Ctl(c.fd, c.gen, c.events, 0)
		c.events = 0
	}
	if c.fd < len(lp.byFD) && lp.byFD[c.fd].c == c {
		lp.byFD[c.fd] = loopEnt{}
	}
	if c.in != nil {
		loopInPool.Put(c.in)
		c.in = nil
	}
	c.pending = nil
}
