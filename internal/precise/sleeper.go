package precise

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// Sleeper wakes goroutines at their deadlines. The zero value is not
// usable: call NewSleeper, and Close it when done. It is safe for concurrent use.
type Sleeper struct {
	mu      sync.Mutex
	waiters waitHeap
	next    int64 // the deadline the alarm is set for (ns since base), or -1
	closed  bool
	alarm   alarm // set, under mu, for the earliest deadline
	base    time.Time
	done    chan struct{}
	pool    sync.Pool
}

// alarm is the platform part: one timer that the loop waits on.
type alarm interface {
	set(d time.Duration) // ring once after d (at once if d <= 0), instead of when it was set for
	wait()               // block until it rings, holding no P (see loop)
	close()
}

type waiter struct {
	deadline int64
	index    int
	ch       chan struct{}
	timer    *time.Timer // the runtime's timer for the same deadline (see SleepUntil)
}

// NewSleeper starts the waiting loop.
func NewSleeper() *Sleeper {
	s := &Sleeper{base: time.Now(), done: make(chan struct{}), next: -1, alarm: newAlarm()}
	s.pool.New = func() any {
		t := time.NewTimer(time.Hour)
		t.Stop()
		return &waiter{ch: make(chan struct{}, 1), timer: t}
	}
	go s.loop()
	return s
}

func (s *Sleeper) now() int64 { return int64(time.Since(s.base)) }

// Sleep blocks for d, or until ctx is done (then it returns ctx.Err()).
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	return s.SleepUntil(ctx, s.base.Add(time.Duration(s.now())+d))
}

// SleepUntil blocks until t (on the monotonic clock), or until ctx is done.
//
// The alarm wakes the loop at t within microseconds when a P is free to
// run it. When every P is busy (one P, pinned, whose goroutines spin), a
// goroutine woken through the poller waits in the global run queue behind
// every runnable one; the runtime's own timer for t is run at the next
// switch of goroutines and puts the sleeper first in line, so the sleeper
// waits on both and takes whichever comes first.
func (s *Sleeper) SleepUntil(ctx context.Context, t time.Time) error {
	deadline := int64(t.Sub(s.base))
	if deadline <= s.now() {
		return ctx.Err()
	}
	w := s.pool.Get().(*waiter)
	w.deadline = deadline
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.pool.Put(w)
		time.Sleep(time.Until(t)) // closed: degrade to the runtime's timer
		return ctx.Err()
	}
	heap.Push(&s.waiters, w)
	if s.waiters[0] == w && (s.next < 0 || deadline < s.next) {
		s.next = deadline
		s.alarm.set(time.Duration(deadline - s.now()))
	}
	s.mu.Unlock()
	w.timer.Reset(time.Duration(deadline - s.now()))
	var err error
	select {
	case <-w.ch:
	case <-w.timer.C:
		s.remove(w)
	case <-ctx.Done():
		s.remove(w)
		err = ctx.Err()
	}
	w.timer.Stop()
	s.pool.Put(w)
	return err
}

// remove takes w out of the heap, or, when the loop has already popped it,
// drains its wake-up so that the waiter can be reused.
func (s *Sleeper) remove(w *waiter) {
	s.mu.Lock()
	removed := w.index >= 0
	if removed {
		heap.Remove(&s.waiters, w.index)
	}
	s.mu.Unlock()
	if !removed {
		<-w.ch // the loop pops and sends under mu: the send is there
	}
}

// fireAhead wakes sleepers whose deadline is this close: waking a few
// microseconds early costs less than another round trip through the kernel.
const fireAhead = 20 * time.Microsecond

// loop wakes the sleepers that are due and sets the alarm for the next.
// It waits in the runtime's poller, not in a blocking system call: with
// one P (a generator pinned to one CPU) a goroutine blocked in a system
// call holds the P until sysmon takes it back, up to two of its 10 ms
// ticks when it has backed off, and every other goroutine stands still.
func (s *Sleeper) loop() {
	defer close(s.done)
	for {
		s.mu.Lock()
		if s.closed {
			for len(s.waiters) > 0 {
				w := heap.Pop(&s.waiters).(*waiter)
				w.ch <- struct{}{}
			}
			s.mu.Unlock()
			s.alarm.close()
			return
		}
		now := s.now()
		for len(s.waiters) > 0 && s.waiters[0].deadline <= now+int64(fireAhead) {
			w := heap.Pop(&s.waiters).(*waiter)
			w.ch <- struct{}{}
		}
		s.next = -1
		if len(s.waiters) > 0 {
			s.next = s.waiters[0].deadline
			s.alarm.set(time.Duration(s.next - now))
		}
		s.mu.Unlock()
		s.alarm.wait()
	}
}

// Close wakes every sleeper and stops the waiting loop.
func (s *Sleeper) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.alarm.set(0)
	s.mu.Unlock()
	<-s.done
}

type waitHeap []*waiter

func (h waitHeap) Len() int           { return len(h) }
func (h waitHeap) Less(i, j int) bool { return h[i].deadline < h[j].deadline }
func (h waitHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *waitHeap) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waitHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*h = old[:len(old)-1]
	return w
}
