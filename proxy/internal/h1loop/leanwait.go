package h1loop

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// waitList holds a box's lean requests waiting for the next hop; one
// goroutine ticking watches the clients of those waiting longer than
// watchAfter. A timer per request would be the earliest of the process's
// timers each time it is armed, and each arming would wake the runtime's
// poller to learn it (a system call and a thread woken per request); the
// ticks run while requests come, and stop after a second without any.
//
// The ticks are watchAfter apart after one that started a watch, and each
// tick that started none doubles the gap, up to watchTickMax: a box whose
// next hop answers within watchAfter is woken 1/watchTickMax times a
// second, not 1/watchAfter. A tick costs far more than its own work: it
// wakes a process that was idle, and the runtime's sysmon then polls
// every 20 µs for a millisecond: at a light steady load 1 ms ticks cost
// the box more CPU per request than the requests' own work, and the
// longer the longest gap the less (64 ms brought the box to toxiproxy's
// cost; the figures are in the commit history). A client's
// end or bytes while its request waits are then seen at most
// watchAfter + watchTickMax after they come; a stage's delay (Done)
// watches at once.
//
// Each tick asks the kernel, in one poll(2) for all of them, which of
// those clients sent bytes, closed their side or failed, and starts the
// watch (connReader's background read) of those only, and of any whose
// whole-request deadline has passed: the watch then sees what it would
// have seen started at once — the end, the error, the byte it keeps, the
// timeout — at most a tick later. A watch started for every request
// waiting past watchAfter cost a goroutine, a read and three deadline
// changes each, about a tenth of the box's CPU at 50 busy connections.
//
// The requests are linked in the order they began waiting, so each tick
// looks only at those waiting longer than watchAfter, from the front: a
// request costs a link and an unlink under a lock, no map. The list is
// split by connection into waitShards, each with its own lock, so that a
// box's busy connections spread over many locks instead of all meeting at
// one on every request (a tick takes each in turn).
type waitList struct {
	shards  [waitShards]waitShard
	startMu sync.Mutex    // starting and stopping the ticker
	running atomic.Bool   // a ticker runs (set under startMu)
	ticks   atomic.Int64  // ticks so far, for the tests of their gaps
	done    chan struct{} // closed with the box
	wg      *sync.WaitGroup
}

// waitShards: enough that the connections of a busy box spread over more
// locks than it has CPUs to contend for them, few enough that a tick's
// walk over them is short.
const waitShards = 16

// waitShard is one part of the list, padded to its own cache line.
type waitShard struct {
	mu         sync.Mutex
	head, tail *leanCtx // linked through wait.prev and wait.next
	n          int
	_          [64]byte
}

// waitLink is a request's place in the waitList (under its shard's lock).
type waitLink struct {
	prev, next *leanCtx
	in         bool
	since      time.Time // when it began waiting
}

// add puts ctx at the end of its connection's shard: it began waiting at now.
func (l *waitList) add(ctx *leanCtx, now time.Time) {
	s := l.shardOf(ctx)
	s.mu.Lock()
	ctx.wait = waitLink{prev: s.tail, in: true, since: now}
	if s.tail != nil {
		s.tail.wait.next = ctx
	} else {
		s.head = ctx
	}
	s.tail = ctx
	s.n++
	s.mu.Unlock()
	// After the link: a ticker stopping clears running, then counts the
	// waiting (see stopIdle), so either it sees this request or this sees
	// it gone.
	if !l.running.Load() {
		l.start()
	}
}

// start starts the ticker unless one runs or the box is closing.
func (l *waitList) start() {
	l.startMu.Lock()
	defer l.startMu.Unlock()
	if l.running.Load() {
		return
	}
	select {
	case <-l.done:
	default:
		l.running.Store(true)
		l.wg.Add(1) // the caller's connection holds the box's group above zero
		go l.tick()
	}
}

// stopIdle stops the ticker unless a request came meanwhile; true when it
// stopped.
func (l *waitList) stopIdle() bool {
	l.startMu.Lock()
	defer l.startMu.Unlock()
	l.running.Store(false)
	if l.waiting() > 0 {
		l.running.Store(true)
		return false
	}
	return true
}

// waiting counts the requests in the list.
func (l *waitList) waiting() int {
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += s.n
		s.mu.Unlock()
	}
	return n
}

func (l *waitList) remove(ctx *leanCtx) {
	s := l.shardOf(ctx)
	s.mu.Lock()
	s.unlink(ctx)
	s.mu.Unlock()
}

// shardOf is the shard of ctx's connection (its id is set before ctx is shared).
func (l *waitList) shardOf(ctx *leanCtx) *waitShard {
	return &l.shards[ctx.exchange.Conn%waitShards]
}

// unlink takes ctx out of the shard, if it is in (under s.mu).
func (s *waitShard) unlink(ctx *leanCtx) {
	w := &ctx.wait
	if !w.in {
		return
	}
	if w.prev != nil {
		w.prev.wait.next = w.next
	} else {
		s.head = w.next
	}
	if w.next != nil {
		w.next.wait.prev = w.prev
	} else {
		s.tail = w.prev
	}
	*w = waitLink{}
	s.n--
}

func (l *waitList) tick() {
	defer l.wg.Done()
	every := watchAfter
	t := time.NewTimer(every)
	defer t.Stop()
	var idleSince time.Time
	var long, due []*leanCtx
	var deadlines []time.Time
	var clients socket.PollSet
	for {
		select {
		case <-l.done:
			l.startMu.Lock()
			l.running.Store(false)
			l.startMu.Unlock()
			return
		case <-t.C:
		}
		every = min(every*2, watchTickMax) // unless this tick starts a watch
		t.Reset(every)
		now := time.Now()
		long, deadlines = long[:0], deadlines[:0]
		clients.Reset()
		l.ticks.Add(1)
		n := 0
		for i := range l.shards {
			s := &l.shards[i]
			s.mu.Lock()
			for ctx := s.head; ctx != nil && now.Sub(ctx.wait.since) >= watchAfter; ctx = ctx.wait.next {
				long = append(long, ctx)
				deadlines = append(deadlines, ctx.deadline) // set before ctx was added
				clients.Add(ctx.lc.fd)
			}
			n += s.n
			s.mu.Unlock()
		}
		if n > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = now
		} else if now.Sub(idleSince) > time.Second && l.stopIdle() {
			return
		}
		if len(long) == 0 {
			continue
		}
		clients.Poll()
		due = due[:0]
		for i, ctx := range long {
			if clients.Ready(i) || !deadlines[i].IsZero() && !now.Before(deadlines[i]) {
				due = append(due, ctx)
			}
		}
		if len(due) == 0 {
			continue
		}
		every = watchAfter
		t.Reset(every)
		for _, ctx := range due {
			s := l.shardOf(ctx)
			s.mu.Lock()
			s.unlink(ctx) // one removed meanwhile is not in the list: nothing to do
			s.mu.Unlock()
		}
		for _, ctx := range due {
			ctx.watch() // a request over meanwhile has its context ended: no watch starts
		}
	}
}
