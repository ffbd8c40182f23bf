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
	next    int64 // earliest deadline the waiting thread knows of (ns since epoch base)
	closed  bool
	wake    waker // interrupts the waiting thread when an earlier deadline arrives
	base    time.Time
	done    chan struct{}
	pool    sync.Pool
}

// waker is the platform part: block until a deadline or an interruption.
type waker interface {
	wait(d time.Duration) // returns after d, or earlier when interrupted
	interrupt()
	close()
}

type waiter struct {
	deadline int64
	index    int
	ch       chan struct{}
}

// NewSleeper starts the waiting thread.
func NewSleeper() *Sleeper {
	s := &Sleeper{base: time.Now(), done: make(chan struct{}), next: -1}
	s.pool.New = func() any { return &waiter{ch: make(chan struct{}, 1)} }
	ready := make(chan struct{})
	go s.loop(ready)
	<-ready
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
	earlier := s.waiters[0] == w && (s.next < 0 || deadline < s.next)
	s.mu.Unlock()
	if earlier {
		s.wake.interrupt()
	}
	select {
	case <-w.ch:
		s.pool.Put(w)
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		removed := w.index >= 0
		if removed {
			heap.Remove(&s.waiters, w.index)
		}
		s.mu.Unlock()
		if !removed {
			<-w.ch // fired concurrently: drain so the waiter can be reused
		}
		s.pool.Put(w)
		return ctx.Err()
	}
}

// fireAhead wakes sleepers whose deadline is this close: waking a few
// microseconds early costs less than another round trip through the kernel.
const fireAhead = 20 * time.Microsecond

func (s *Sleeper) loop(ready chan<- struct{}) {
	s.wake = newWaker()
	close(ready)
	defer close(s.done)
	for {
		s.mu.Lock()
		if s.closed {
			for len(s.waiters) > 0 {
				w := heap.Pop(&s.waiters).(*waiter)
				w.ch <- struct{}{}
			}
			s.mu.Unlock()
			s.wake.close()
			return
		}
		now := s.now()
		for len(s.waiters) > 0 && s.waiters[0].deadline <= now+int64(fireAhead) {
			w := heap.Pop(&s.waiters).(*waiter)
			w.ch <- struct{}{}
		}
		wait := time.Duration(-1)
		s.next = -1
		if len(s.waiters) > 0 {
			s.next = s.waiters[0].deadline
			wait = time.Duration(s.next - now)
		}
		s.mu.Unlock()
		s.wake.wait(wait)
	}
}

// Close wakes every sleeper and stops the waiting thread.
func (s *Sleeper) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.wake.interrupt()
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
