package proxy

import (
	"sync"
	"time"
)

// waitList holds a box's lean requests waiting for the next hop; one
// goroutine ticking every watchAfter watches the clients of those waiting
// longer. A timer per request would be the earliest of the process's
// timers each time it is armed, and each arming would wake the runtime's
// poller to learn it (a system call and a thread woken per request); the
// ticker runs while requests come, and stops after a second without any.
//
// Each tick asks the kernel, in one poll(2) for all of them, which of
// those clients sent bytes, closed their side or failed, and starts the
// watch (connReader's background read) of those only, and of any whose
// whole-request deadline has passed: the watch then sees what it would
// have seen started at once — the end, the error, the byte it keeps, the
// timeout — at most a tick later. A watch started for every request
// waiting past watchAfter cost a goroutine, a read and three deadline
// changes each, about a tenth of the box's CPU at 50 busy connections.
type waitList struct {
	mu      sync.Mutex
	waiting map[*leanCtx]time.Time
	running bool
	done    chan struct{} // closed with the box
	wg      *sync.WaitGroup
}

func (l *waitList) add(ctx *leanCtx) {
	l.mu.Lock()
	if l.waiting == nil {
		l.waiting = map[*leanCtx]time.Time{}
	}
	l.waiting[ctx] = time.Now()
	if !l.running {
		select {
		case <-l.done:
		default:
			l.running = true
			l.wg.Add(1) // the caller's connection holds the box's group above zero
			go l.tick()
		}
	}
	l.mu.Unlock()
}

func (l *waitList) remove(ctx *leanCtx) {
	l.mu.Lock()
	delete(l.waiting, ctx)
	l.mu.Unlock()
}

func (l *waitList) tick() {
	defer l.wg.Done()
	t := time.NewTicker(watchAfter)
	defer t.Stop()
	var idleSince time.Time
	var long, due []*leanCtx
	var clients clientPoll
	for {
		select {
		case <-l.done:
			l.mu.Lock()
			l.running = false
			l.mu.Unlock()
			return
		case <-t.C:
		}
		now := time.Now()
		long = long[:0]
		clients.reset()
		l.mu.Lock()
		for ctx, since := range l.waiting {
			if now.Sub(since) >= watchAfter {
				long = append(long, ctx)
				clients.add(ctx.lc.fd)
			}
		}
		if len(l.waiting) > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = now
		} else if now.Sub(idleSince) > time.Second {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		if len(long) == 0 {
			continue
		}
		clients.poll()
		due = due[:0]
		for i, ctx := range long {
			if clients.ready(i) || ctx.lc.cr.deadlinePassed(now) {
				due = append(due, ctx)
			}
		}
		if len(due) == 0 {
			continue
		}
		l.mu.Lock()
		for _, ctx := range due {
			delete(l.waiting, ctx)
		}
		l.mu.Unlock()
		for _, ctx := range due {
			ctx.watch() // a request over meanwhile has its context ended: no watch starts
		}
	}
}
