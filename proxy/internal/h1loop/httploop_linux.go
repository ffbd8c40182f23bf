//go:build linux

package h1loop

import (
	"context"
	"errors"
	"net"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/proxy/internal/deadline"
	"github.com/middlebench/middlebench/proxy/internal/epoll"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/socket"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// httpLoop serves a plain-HTTP box's client connections from one
// level-triggered epoll set, as the relay does for a byte box: it reads
// each request head, runs the stages' handler chain on its own goroutine
// when every stage decides the request at once (Config.Instant), writes the
// request to a keep-alive connection to the next hop that is in the same
// set, and copies the answer back, read by read. A goroutine per
// connection (the lean loop) parks in the runtime's poller and is woken
// through it for every message, a read that fails with EAGAIN first; from
// one loop a request costs its two reads and two writes, and one
// epoll_wait serves every connection with something to say.
//
// What the loop does not take whole it hands over, with the bytes it has
// read, to the lean loop (loophandoff_linux.go), which serves the
// connection from then on: a request with a body, one the lean parser
// leaves to net/http, one a stage may delay, queue or reset, and an answer
// the lean forwarder would not copy as bytes (a body ended by the close, a
// Content-Type to sniff, a Connection header naming others …). The limits
// are the lean loop's: the request head's deadline (readHeaderTimeout), the
// idle one between requests, the whole request's (readTimeout) and the
// next hop's first byte (responseHeaderTimeout) while the answer is
// awaited; the client's end meanwhile is seen at once.
type httpLoop struct {
	e      *Engine
	addr   string // the next hop's host:port
	dialer net.Dialer

	epoll.Loop
	queue []*loopClient // taken, not yet in the set
	dials []dialResult  // connections to the next hop dialed for a client
	timer int           // a timerfd in the set, armed for the earliest deadline

	// The loop's own, once running:
	byFD       []loopEnt // by descriptor
	gen        int32     // tells a descriptor's reuse apart in a batch of events
	now        time.Time // read once per batch of events
	armedFor   time.Time // what the timer is armed for (zero: not armed)
	queues     [numQueues]deadline.Queue
	idle       []*loopUp // connections to the next hop with no exchange, the most recent last
	maxIdle    int
	dialCtx    context.Context
	cancelDial func()
	sc         loopScratch
	// served: requests the loop answered or forwarded; handed:
	// connections it handed to the lean loop. The loop's own: read once
	// it has stopped.
	served, handed int64
}

// The loop's deadline queues (each a fixed span after its item was set).
const (
	qHeader   = iota // a client's request head (readHeaderTimeout)
	qIdle            // a client between requests (IdleTimeout)
	qRead            // a whole request, while its answer is awaited (readTimeout)
	qResponse        // the next hop's first answer byte (responseHeaderTimeout)
	qUpIdle          // a connection to the next hop with no exchange (the transport's IdleLimit)
	numQueues
)

// timerPad marks the timerfd's events (the set's eventfd has epoll.WakePad).
const timerPad = -2

// loopEnt is what a descriptor in the set is: a client or a connection to
// the next hop, registered under gen.
type loopEnt struct {
	c   *loopClient
	u   *loopUp
	gen int32
}

// dialResult is a dial to the next hop made for client c.
type dialResult struct {
	c    *loopClient
	conn net.Conn
	err  error
}

func newHTTPLoop(e *Engine) *httpLoop {
	idle := e.cfg.MaxIdle
	if idle == 0 {
		idle = 1024
	}
	lp := &httpLoop{e: e, addr: upstream.HostPort(e.cfg.Next), maxIdle: idle,
		dialer: net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}}
	lp.sc.init(lp)
	return lp
}

// take hands client connection c to the loop when it is a plain TCP
// socket that no stage wraps; false: not taken, and still the caller's.
// A taken connection is the loop's until it ends (untracked, closed, the
// box's group done) or is handed to a goroutine.
func (lp *httpLoop) take(c net.Conn) bool {
	tc, ok := c.(*exchange.Tracked)
	if !ok {
		return false
	}
	tcp, ok := tc.Conn.(*net.TCPConn)
	if !ok {
		return false
	}
	fd, err := socket.Dup(tcp)
	if err != nil {
		return false
	}
	lc := newLoopClient(lp, fd, tc)
	if err := lp.enqueue(lc); err != nil {
		unix.Close(fd)
		return false
	}
	// The socket is the loop's now: net's descriptor goes, and with it
	// net's poller registration; the socket stays open on the duplicate.
	tcp.Close()
	return true
}

var errLoopStopped = errors.New("http loop stopped")

func (lp *httpLoop) enqueue(c *loopClient) error {
	lp.Mu.Lock()
	defer lp.Mu.Unlock()
	if lp.Stopped {
		return errLoopStopped
	}
	if !lp.Running {
		if err := lp.start(); err != nil {
			return err
		}
	}
	lp.queue = append(lp.queue, c)
	return lp.Set.Signal()
}

// post gives the loop a dial's result; after the loop has stopped, a
// connection is closed here.
func (lp *httpLoop) post(d dialResult) {
	lp.Mu.Lock()
	defer lp.Mu.Unlock()
	if lp.Stopped {
		if d.conn != nil {
			d.conn.Close()
		}
		return
	}
	lp.dials = append(lp.dials, d)
	_ = lp.Set.Signal()
}

// start makes the set and its timer and starts the loop (under mu).
func (lp *httpLoop) start() error {
	set, err := epoll.NewSet("http loop", lp.e.cfg.OwnProcess)
	if err != nil {
		return err
	}
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		set.Close()
		return err
	}
	if err := set.Ctl(tfd, timerPad, 0, unix.EPOLLIN); err != nil {
		unix.Close(tfd)
		set.Close()
		return err
	}
	lp.timer = tfd
	lp.Begin(set)
	lp.dialCtx, lp.cancelDial = context.WithCancel(context.Background())
	go lp.loop()
	return nil
}

func (lp *httpLoop) loop() {
	defer close(lp.Exited)
	events := make([]unix.EpollEvent, 128)
	for {
		n, err := lp.Set.Wait(events)
		if err != nil {
			lp.WaitFailed("http loop", err)
			lp.shut()
			return
		}
		lp.now = time.Now()
		for _, ev := range events[:n] {
			switch ev.Pad {
			case epoll.WakePad:
				if !lp.takeQueue() {
					lp.shut()
					return
				}
			case timerPad:
				var buf [8]byte
				_, _ = lp.Set.Read(lp.timer, buf[:])
				lp.armedFor = time.Time{}
			default:
				lp.dispatch(ev)
			}
		}
		lp.expire()
		lp.arm()
	}
}

// dispatch acts on one descriptor's events.
func (lp *httpLoop) dispatch(ev unix.EpollEvent) {
	fd := int(ev.Fd)
	if fd >= len(lp.byFD) {
		return
	}
	e := lp.byFD[fd]
	switch {
	case e.gen != ev.Pad:
		// an event of a descriptor closed earlier in this batch
	case e.c != nil:
		lp.clientEvent(e.c, ev.Events)
	case e.u != nil:
		lp.upEvent(e.u, ev.Events)
	}
}

// takeQueue registers the clients taken and acts on the dials done;
// false when the loop is to stop.
func (lp *httpLoop) takeQueue() bool {
	lp.Set.DrainWake()
	lp.Mu.Lock()
	queue, dials, stopped := lp.queue, lp.dials, lp.Stopped
	lp.queue, lp.dials = nil, nil
	lp.Mu.Unlock()
	if stopped {
		for _, c := range queue {
			lp.endClient(c)
		}
		for _, d := range dials {
			if d.conn != nil {
				d.conn.Close()
			}
		}
		return false
	}
	for _, c := range queue {
		lp.admit(c)
	}
	for _, d := range dials {
		lp.dialed(d)
	}
	return true
}

// register gives fd its place in the set, as client c or connection u.
func (lp *httpLoop) register(fd int, c *loopClient, u *loopUp) int32 {
	for fd >= len(lp.byFD) {
		lp.byFD = append(lp.byFD, make([]loopEnt, max(64, len(lp.byFD)))...)
	}
	if lp.gen++; lp.gen < 0 {
		lp.gen = 0
	}
	lp.byFD[fd] = loopEnt{c: c, u: u, gen: lp.gen}
	return lp.gen
}

// forget closes fd and takes it out of the loop's table (and the set).
func (lp *httpLoop) forget(fd int) {
	if fd < len(lp.byFD) {
		lp.byFD[fd] = loopEnt{}
	}
	unix.Close(fd)
}

// expire fires every deadline passed by now.
func (lp *httpLoop) expire() {
	for i := range lp.queues {
		q := &lp.queues[i]
		for d := q.Expired(lp.now); d != nil; d = q.Expired(lp.now) {
			d.Fire()
		}
	}
}

// arm sets the timer for the earliest deadline, unless it is armed for
// one before it already: a deadline moved later (most are, request after
// request) leaves the timer as it is, to fire early once and be armed
// again, rather than a system call each time.
func (lp *httpLoop) arm() {
	var first time.Time
	for i := range lp.queues {
		if due, ok := lp.queues[i].Earliest(); ok && (first.IsZero() || due.Before(first)) {
			first = due
		}
	}
	if first.IsZero() || !lp.armedFor.IsZero() && !first.Before(lp.armedFor) {
		return
	}
	d := max(first.Sub(lp.now), time.Microsecond)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	if err := unix.TimerfdSettime(lp.timer, 0, &spec, nil); err == nil {
		lp.armedFor = first
	}
}

// set puts deadline d in queue q, due span after from.
func (lp *httpLoop) setDeadline(d *deadline.Item, q int, from time.Time, span time.Duration) {
	lp.queues[q].Set(d, from.Add(span))
}

// shut ends every connection and closes the loop's own descriptors.
func (lp *httpLoop) shut() {
	lp.cancelDial()
	for _, e := range lp.byFD {
		switch {
		case e.c != nil:
			lp.endClient(e.c)
		case e.u != nil:
			lp.closeUp(e.u)
		}
	}
	lp.Mu.Lock()
	queue, dials := lp.queue, lp.dials
	lp.queue, lp.dials = nil, nil
	lp.Mu.Unlock()
	for _, c := range queue {
		lp.endClient(c)
	}
	for _, d := range dials {
		if d.conn != nil {
			d.conn.Close()
		}
	}
	unix.Close(lp.timer)
	lp.Set.Close()
}

// inPoller reports whether the loop waits in the runtime's poller (false:
// no loop, or not running yet).
func (lp *httpLoop) inPoller() bool {
	if lp == nil {
		return false
	}
	lp.Mu.Lock()
	set := lp.Set
	lp.Mu.Unlock()
	return set != nil && set.InPoller()
}
