//go:build linux

package h1loop

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/deadline"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// loopUp is a keep-alive connection of the HTTP loop to the next hop.
type loopUp struct {
	fd           int
	gen          int32
	laddr, raddr net.Addr // for errors worded as net's
	c            *loopClient
	in           *[]byte // the answer as read, (*in)[r:w] not yet moved on
	r, w         int
	out          []byte // the request head's bytes its socket has not taken yet
	events       uint32
	paused       bool // not read: its client has not taken the last bytes
	reused       bool // this exchange is not its first: the next hop may have closed it meanwhile
	got          bool // a byte of this exchange's answer came
	idle         bool
	idleSince    time.Time
	gone         bool
	tIdle        deadline.Item

	// The answer being copied.
	close   bool // the next hop closes after it
	noBody  bool
	chunked bool
	left    int64 // Content-Length bytes still to come
	cl      int64
	chunks  chunkScanner
}

// errTimeout is the next hop's silence past responseHeaderTimeout, worded
// as net's read deadline would word it.
var errTimeout = os.ErrDeadlineExceeded

// opError words err as net does for a read or write on the connection.
func (u *loopUp) opError(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if errno, ok := err.(unix.Errno); ok {
		err = os.NewSyscallError(op, errno)
	}
	return &net.OpError{Op: op, Net: "tcp", Source: u.laddr, Addr: u.raddr, Err: err}
}

// forward sends c's request (its head in c.upHead) to the next hop, on an
// idle connection or a new one.
func (lp *httpLoop) forward(c *loopClient) {
	for len(lp.idle) > 0 {
		u := lp.idle[len(lp.idle)-1]
		lp.idle = lp.idle[:len(lp.idle)-1]
		u.idle = false
		u.tIdle.Clear()
		if lp.now.Sub(u.idleSince) < lp.e.fwd.tr.IdleLimit.Load() {
			u.reused = true
			lp.sendOn(c, u)
			return
		}
		lp.closeUp(u)
	}
	lp.dial(c)
}

// dial connects to the next hop for c on a goroutine of the box's; the
// result comes back through post.
func (lp *httpLoop) dial(c *loopClient) {
	c.dialing = true
	lp.e.cfg.WG.Add(1)
	go func() {
		defer lp.e.cfg.WG.Done()
		conn, err := lp.dialer.DialContext(lp.dialCtx, "tcp", lp.addr)
		lp.post(dialResult{c: c, conn: conn, err: err})
	}()
}

// dialed takes a dial's connection into the loop: for its client if it
// still waits for it, else into the idle pool.
func (lp *httpLoop) dialed(d dialResult) {
	c := d.c
	waiting := !c.gone && c.dialing
	c.dialing = false
	if d.err != nil {
		if waiting {
			lp.fail(c, d.err)
		}
		return
	}
	u, err := lp.adopt(d.conn)
	if err != nil {
		if waiting {
			lp.fail(c, err)
		}
		return
	}
	if !waiting {
		lp.putIdle(u)
		return
	}
	lp.sendOn(c, u)
}

// adopt takes a dialed connection into the loop.
func (lp *httpLoop) adopt(nc net.Conn) (*loopUp, error) {
	tcp, ok := nc.(*net.TCPConn)
	if !ok {
		nc.Close()
		return nil, fmt.Errorf("next hop %s: not a TCP connection", lp.addr)
	}
	fd, err := socket.Dup(tcp)
	u := &loopUp{fd: fd, laddr: tcp.LocalAddr(), raddr: tcp.RemoteAddr()}
	tcp.Close()
	if err != nil {
		return nil, err
	}
	u.in = copybuf.Get()
	u.tIdle.Fire = func() { lp.closeUp(u) }
	u.gen = lp.register(fd, nil, u)
	lp.watchUp(u)
	return u, nil
}

// watchUp sets what the set waits for on u: readable unless paused,
// writable while request bytes wait.
func (lp *httpLoop) watchUp(u *loopUp) {
	if u.gone {
		return
	}
	var want uint32
	if !u.paused {
		want |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if len(u.out) > 0 {
		want |= unix.EPOLLOUT
	}
	if want == u.events {
		return
	}
	if err := lp.Set.Ctl(u.fd, u.gen, u.events, want); err != nil {
		u.events = 0
		lp.upFailed(u, err)
		return
	}
	u.events = want
}

// sendOn writes c's request on u.
func (lp *httpLoop) sendOn(c *loopClient, u *loopUp) {
	c.up, u.c = u, c
	u.got, u.r, u.w = false, 0, 0
	u.chunks = chunkScanner{}
	n, err := lp.Set.Write(u.fd, c.upHead)
	switch {
	case err != nil && !errors.Is(err, unix.EAGAIN):
		lp.upFailed(u, u.opError("write", err))
	case n < len(c.upHead):
		u.out = c.upHead[n:] // c.upHead stays as it is until the answer
		lp.watchUp(u)
	default:
		lp.sent(c)
	}
}

// sent: c's request is all written; the next hop's first byte is due
// within responseHeaderTimeout.
func (lp *httpLoop) sent(c *loopClient) {
	if d := lp.e.cfg.Limits.ResponseHeader; d > 0 {
		lp.setDeadline(&c.tResp, qResponse, lp.now, d)
	}
}

func (lp *httpLoop) upEvent(u *loopUp, ev uint32) {
	if u.c == nil {
		lp.closeUp(u) // idle: the next hop closed it, or spoke unasked
		return
	}
	if ev&unix.EPOLLOUT != 0 && len(u.out) > 0 {
		n, err := lp.Set.Write(u.fd, u.out)
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			lp.upFailed(u, u.opError("write", err))
			return
		}
		if u.out = u.out[n:]; len(u.out) == 0 {
			u.out = nil
			lp.watchUp(u)
			lp.sent(u.c)
		}
	}
	if !u.gone && u.c != nil && !u.paused && ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		lp.upRead(u)
	}
}

// upRead reads what the next hop sent and moves it on.
func (lp *httpLoop) upRead(u *loopUp) {
	in := *u.in
	if u.w == len(in) {
		if u.r == 0 {
			return // full: a head that does not fit is handed over before this (answerHead)
		}
		u.w = copy(in, in[u.r:u.w])
		u.r = 0
	}
	n, err := lp.Set.Read(u.fd, in[u.w:])
	switch {
	case errors.Is(err, unix.EAGAIN):
		return
	case err != nil:
		lp.upEnded(u, u.opError("read", err))
		return
	case n == 0:
		lp.upEnded(u, io.EOF)
		return
	}
	u.w += n
	u.got = true
	lp.pump(u.c)
}

// upEnded acts on the next hop's end of u (EOF) or its failure.
func (lp *httpLoop) upEnded(u *loopUp, err error) {
	c := u.c
	if c.state == clientAnswering {
		lp.cut(c, u, err)
		return
	}
	if u.w > u.r {
		err = headError((*u.in)[u.r:u.w], c.method, err)
	}
	lp.upFailed(u, err)
}

// putIdle keeps u for a later request, or closes it when the pool is full.
func (lp *httpLoop) putIdle(u *loopUp) {
	if len(lp.idle) >= lp.maxIdle {
		lp.closeUp(u)
		return
	}
	u.r, u.w, u.paused, u.idle, u.idleSince = 0, 0, false, true, lp.now
	lp.idle = append(lp.idle, u)
	lp.setDeadline(&u.tIdle, qUpIdle, lp.now, lp.e.fwd.tr.IdleLimit.Load())
	lp.watchUp(u)
}

// closeUp closes u, out of its exchange or the idle pool.
func (lp *httpLoop) closeUp(u *loopUp) {
	if u.gone {
		return
	}
	u.gone = true
	u.tIdle.Clear()
	if u.c != nil {
		if u.c.up == u {
			u.c.up = nil
		}
		u.c = nil
	}
	if u.idle {
		for i, v := range lp.idle {
			if v == u {
				lp.idle = append(lp.idle[:i], lp.idle[i+1:]...)
				break
			}
		}
		u.idle = false
	}
	lp.forget(u.fd)
	copybuf.Put(u.in)
	u.in = nil
}
