//go:build linux

package relay

import (
	"errors"
	"net"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/epoll"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// Relay moves the bytes of a byte box's connection pairs that no stage
// wraps (plain TCP on both sides) on one goroutine, from one
// level-triggered epoll set of its own. Two copy goroutines per pair park
// in the runtime's poller and are woken through it for every message: a
// read that fails with EAGAIN first, a goroutine switch, often a thread
// woken. From one loop a message costs its read and its write, less CPU
// than through the copy goroutines or toxiproxy (the measurements are in
// the commit history).
//
// The sockets are duplicated out of net's poller and net's own closed, so
// that the runtime's poller no longer wakes for them; the client's
// trackedConn stays open (the box's count of active connections and its
// connection slots) until the pair ends. Each pair keeps the copy
// goroutines' behaviour: an end's EOF is passed on as a half-close once
// what was read before it is written; an error on either side closes
// both; a pair ends when both ways have ended.
type Relay struct {
	up, down *atomic.Int64 // the box's byte counters: client to next hop, back
	block    bool          // the loop may block in epoll_wait (epoll.Set.Wait)

	epoll.Loop
	queue []*relayPair // added, not yet in the loop's set

	ends map[int32]*relayEnd // the loop's own: by fd
	gen  int32               // the loop's own: tells an fd's reuse apart in a batch of events
}

// relayPair is a client socket and its next hop's (ends[0], ends[1]);
// way i carries end i's bytes to the other end.
type relayPair struct {
	ends  [2]relayEnd
	bufs  [2]*[]byte // bufs[i]: what way i reads into
	pipes [2][2]int  // way i's pipe (read end, write end) once it splices, else zero
	piped [2]int     // bytes of way i in its pipe, not yet written on
	live  int        // ways not yet ended
	done  chan struct{}
	// nextHopReset is told of a read from the next hop (end 1) that
	// failed: a reset, passed on to the client as one.
	nextHopReset func(error)
	gone         bool
}

// relaySpliceChunk: a way whose read fills its whole buffer — a bulk
// transfer — moves on through a pipe of this size with splice(2), as
// io.Copy between two sockets does, not copied through the relay: a bulk
// transfer spliced costs the box less CPU than copied. Small messages stay
// on read and write: splice's two calls cost more for them.
const relaySpliceChunk = 1 << 20

// relayEnd is one socket of a pair. The way from it reads it while
// reading is set; pending is what was read from the other end and waits
// to be written to it (while any is, the other end is not read).
type relayEnd struct {
	pair       *relayPair
	i          int
	fd         int
	gen        int32
	reading    bool
	eof        bool   // its way read EOF: passed on once pending on the other end is written
	pending    []byte // read from the other end, waiting to be written to this one
	registered bool
	events     uint32
}

// New makes a relay that counts the bytes it moves in up (client to next
// hop) and down; block: its loop may block in epoll_wait (epoll.Set.Wait).
// Its loop starts with the first pair.
func New(up, down *atomic.Int64, block bool) *Relay {
	return &Relay{up: up, down: down, block: block}
}

// Carry hands client and up to the relay when both are plain TCP sockets;
// the returned channel closes when the pair has ended; nextHopReset is
// called (on the relay's goroutine) when up's read fails. false: not taken
// (another kind of connection, or a system call failed); the caller then
// copies them itself, both still its own.
func (r *Relay) Carry(client, up net.Conn, nextHopReset func(error)) (<-chan struct{}, bool) {
	ct, ok1 := client.(*net.TCPConn)
	ut, ok2 := up.(*net.TCPConn)
	if !ok1 || !ok2 {
		return nil, false
	}
	cfd, err := socket.Dup(ct)
	if err != nil {
		return nil, false
	}
	ufd, err := socket.Dup(ut)
	if err != nil {
		unix.Close(cfd)
		return nil, false
	}
	p := &relayPair{live: 2, done: make(chan struct{}), nextHopReset: nextHopReset}
	for i, fd := range []int{cfd, ufd} {
		p.ends[i] = relayEnd{pair: p, i: i, fd: fd, reading: true}
		p.bufs[i] = copybuf.Get()
	}
	if err := r.enqueue(p); err != nil {
		for i, fd := range []int{cfd, ufd} {
			unix.Close(fd)
			copybuf.Put(p.bufs[i])
		}
		return nil, false
	}
	// The sockets are the relay's now: net's descriptors go (and with
	// them net's poller registrations); the sockets stay open on the
	// duplicates.
	ct.Close()
	ut.Close()
	return p.done, true
}

var errRelayStopped = errors.New("relay stopped")

func (r *Relay) enqueue(p *relayPair) error {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if r.Stopped {
		return errRelayStopped
	}
	if !r.Running {
		if err := r.start(); err != nil {
			return err
		}
	}
	r.queue = append(r.queue, p)
	return r.Set.Signal()
}

// start makes the epoll set and starts the loop (under mu).
func (r *Relay) start() error {
	set, err := epoll.NewSet("relay", r.block)
	if err != nil {
		return err
	}
	r.Begin(set)
	r.ends = map[int32]*relayEnd{}
	go r.loop()
	return nil
}

func (r *Relay) loop() {
	defer close(r.Exited)
	events := make([]unix.EpollEvent, 128)
	for {
		n, err := r.Set.Wait(events)
		if err != nil {
			r.WaitFailed("relay", err)
			r.shut()
			return
		}
		for _, ev := range events[:n] {
			if ev.Pad == epoll.WakePad {
				if !r.takeQueue() {
					r.shut()
					return
				}
				continue
			}
			e := r.ends[ev.Fd]
			if e == nil || e.gen != ev.Pad || e.pair.gone {
				continue // an event of a pair ended earlier in this batch
			}
			r.handle(e, ev.Events)
		}
	}
}

// takeQueue registers the pairs queued; false when the relay is to stop.
func (r *Relay) takeQueue() bool {
	r.Set.DrainWake()
	r.Mu.Lock()
	queue, stopped := r.queue, r.Stopped
	r.queue = nil
	r.Mu.Unlock()
	for _, p := range queue {
		for i := range p.ends {
			e := &p.ends[i]
			r.gen++
			if r.gen < 0 {
				r.gen = 0
			}
			e.gen = r.gen
			r.ends[int32(e.fd)] = e
		}
		for i := range p.ends {
			r.update(&p.ends[i])
		}
	}
	return !stopped
}

// shut ends every pair and closes the loop's own descriptors.
func (r *Relay) shut() {
	for _, e := range r.ends {
		r.end(e.pair)
	}
	r.Mu.Lock()
	queue := r.queue
	r.queue = nil
	r.Mu.Unlock()
	for _, p := range queue {
		r.end(p)
	}
	r.Set.Close()
}

// handle acts on e's events. An error (a reset) surfaces through the read
// or the write it fails, after what was read before it has gone on, as in
// the copy goroutines; on an end that neither reads nor writes, it ends
// the pair at once.
func (r *Relay) handle(e *relayEnd, events uint32) {
	p := e.pair
	failed := events&unix.EPOLLERR != 0
	if p.waiting(e) && (failed || events&unix.EPOLLOUT != 0) {
		r.flush(e)
	}
	if !p.gone && e.reading && (failed || events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0) {
		r.pump(e)
	}
	if !p.gone && failed && !e.reading && !p.waiting(e) {
		r.end(p)
	}
}

// waiting reports whether bytes wait to be written to o.
func (p *relayPair) waiting(o *relayEnd) bool { return len(o.pending) > 0 || p.piped[1-o.i] > 0 }

// pump reads from e once and writes what it read to the other end; what
// the other end does not take yet waits there, and e is not read meanwhile.
func (r *Relay) pump(e *relayEnd) {
	p := e.pair
	o := &p.ends[1-e.i]
	if p.pipes[e.i][1] != 0 {
		r.pumpSplice(e, o)
		return
	}
	buf := *p.bufs[e.i]
	n, err := r.Set.Read(e.fd, buf)
	if !r.brought(e, o, n, err) {
		return
	}
	w, err := r.Set.Write(o.fd, buf[:n])
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		r.end(p)
		return
	}
	if w < n {
		o.pending = buf[w:n]
		e.reading = false
		r.update(e)
		r.update(o)
	}
	if n == len(buf) {
		var fds [2]int
		if unix.Pipe2(fds[:], unix.O_CLOEXEC|unix.O_NONBLOCK) == nil {
			// As net's splice: a pipe of relaySpliceChunk (the default
			// pipe-max-size), or what the kernel grants.
			_, _ = unix.FcntlInt(uintptr(fds[0]), unix.F_SETPIPE_SZ, relaySpliceChunk)
			p.pipes[e.i] = fds // from the next read on; a failed pipe leaves the way on read and write
		}
	}
}

// brought acts on a read of n bytes from e (or its error) and reports
// whether there are bytes to move on to o: nothing yet (EAGAIN), an error
// (the pair ends, o reset as e was) or EOF (passed on once nothing waits
// for o) say no.
func (r *Relay) brought(e, o *relayEnd, n int, err error) bool {
	switch {
	case errors.Is(err, unix.EAGAIN):
		return false
	case err != nil:
		_ = unix.SetsockoptLinger(o.fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
		if e.i == 1 && e.pair.nextHopReset != nil {
			e.pair.nextHopReset(err)
		}
		r.end(e.pair)
		return false
	case n == 0:
		e.reading, e.eof = false, true
		if !e.pair.waiting(o) {
			r.passEOF(e, o)
		}
		r.update(e)
		return false
	}
	r.count(e.i).Add(int64(n))
	return true
}

// pumpSplice moves a read of e through its way's pipe on to o; what o
// does not take yet stays in the pipe, and e is not read meanwhile.
func (r *Relay) pumpSplice(e, o *relayEnd) {
	p := e.pair
	n, err := r.Set.Splice(e.fd, p.pipes[e.i][1], relaySpliceChunk)
	if !r.brought(e, o, n, err) {
		return
	}
	p.piped[e.i] = n
	if !r.drainPipe(e.i, o) {
		return
	}
	if p.piped[e.i] > 0 {
		e.reading = false
		r.update(e)
		r.update(o)
	}
}

// drainPipe writes what way i holds in its pipe to o, as much as o takes;
// false when the pair ended on an error.
func (r *Relay) drainPipe(i int, o *relayEnd) bool {
	p := o.pair
	for p.piped[i] > 0 {
		m, err := r.Set.Splice(p.pipes[i][0], o.fd, p.piped[i])
		if errors.Is(err, unix.EAGAIN) {
			return true
		}
		if err != nil || m == 0 {
			r.end(p)
			return false
		}
		p.piped[i] -= m
	}
	return true
}

// flush writes what waits for o; once all is written, the other end is
// read again (or its EOF passed on).
func (r *Relay) flush(o *relayEnd) {
	p := o.pair
	e := &p.ends[1-o.i]
	if len(o.pending) > 0 {
		w, err := r.Set.Write(o.fd, o.pending)
		if err != nil && !errors.Is(err, unix.EAGAIN) {
			r.end(p)
			return
		}
		o.pending = o.pending[w:]
		if len(o.pending) > 0 {
			return
		}
		o.pending = nil
	}
	if !r.drainPipe(e.i, o) || p.piped[e.i] > 0 {
		return
	}
	if e.eof {
		r.passEOF(e, o)
	} else {
		e.reading = true
	}
	if !p.gone {
		r.update(e)
		r.update(o)
	}
}

// passEOF half-closes o for e's way, which has ended; the pair ends with
// its second way.
func (r *Relay) passEOF(e, o *relayEnd) {
	_ = unix.Shutdown(o.fd, unix.SHUT_WR)
	p := e.pair
	p.live--
	if p.live == 0 {
		r.end(p)
	}
}

func (r *Relay) count(way int) *atomic.Int64 {
	if way == 0 {
		return r.up
	}
	return r.down
}

// update sets what the loop waits for on e: readable while its way
// reads, writable while bytes wait for it. An end that waits for nothing
// leaves the set, or a hang-up it can do nothing about would be reported
// again and again.
func (r *Relay) update(e *relayEnd) {
	if e.pair.gone {
		return
	}
	var want uint32
	if e.reading {
		want |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if e.pair.waiting(e) {
		want |= unix.EPOLLOUT
	}
	var was uint32
	if e.registered {
		was = e.events
	}
	err := r.Set.Ctl(e.fd, e.gen, was, want)
	e.registered = want != 0
	e.events = want
	if err != nil {
		r.end(e.pair)
	}
}

// end closes both sockets of p and tells its caller.
func (r *Relay) end(p *relayPair) {
	if p.gone {
		return
	}
	p.gone = true
	for i := range p.ends {
		e := &p.ends[i]
		if r.ends[int32(e.fd)] == e {
			delete(r.ends, int32(e.fd))
		}
		unix.Close(e.fd) // leaves the epoll set with its last descriptor
		copybuf.Put(p.bufs[i])
		e.pending = nil
		if p.pipes[i][1] != 0 {
			unix.Close(p.pipes[i][0])
			unix.Close(p.pipes[i][1])
		}
	}
	close(p.done)
}
