package proxy

import (
	"os"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/proxy/internal/copybuf"
)

// dueAt is when a chunk that arrived at arrival with the given delay leaves
// a delay line: arrival + delay, but never before the chunk ahead of it, so
// that jitter does not reorder a byte stream. Chunks are not serialized: a
// burst that arrives at t leaves at t + delay all together.
func dueAt(arrival time.Time, delay time.Duration, last time.Time) time.Time {
	d := arrival.Add(delay)
	if d.Before(last) {
		return last
	}
	return d
}

// chunk is bytes in flight (or, with end set, the end of the stream).
type chunk struct {
	buf     *[]byte // pooled backing array, nil for the end
	b       []byte
	arrival time.Time
	due     time.Time
	end     error // io.EOF, a read error, or errCloseWrite
	fin     bool  // a half-close to pass on
	reset   bool  // a reset to pass on
}

// delayQueue holds chunks in order until they are due, at most max bytes.
type delayQueue struct {
	clk    clock.Clock
	mu     sync.Mutex
	q      []chunk
	bytes  int
	max    int
	last   time.Time
	closed bool
	data   chan struct{} // for the popper: a push, a close, a deadline change
	space  chan struct{} // for the pusher: a pop, a close
}

func newDelayQueue(clk clock.Clock, max int) *delayQueue {
	return &delayQueue{clk: clk, max: max, data: make(chan struct{}, 1), space: make(chan struct{}, 1)}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// kick wakes the popper to look again (a deadline changed).
func (q *delayQueue) kick() { signal(q.data) }

// push appends a chunk due delay after its arrival, waiting while the
// line is full; it returns false once the queue is closed.
func (q *delayQueue) push(c chunk, delay time.Duration) bool {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return false
		}
		if q.bytes == 0 || q.bytes+len(c.b) <= q.max {
			c.due = dueAt(c.arrival, delay, q.last)
			q.last = c.due
			q.q = append(q.q, c)
			q.bytes += len(c.b)
			q.mu.Unlock()
			signal(q.data)
			return true
		}
		q.mu.Unlock()
		<-q.space
	}
}

// pop removes and returns the head chunk once it is due. deadline, when
// set, bounds the wait (os.ErrDeadlineExceeded). A closed, empty queue
// returns ok false.
func (q *delayQueue) pop(deadline func() time.Time) (chunk, bool, error) {
	for {
		q.mu.Lock()
		now := q.clk.Now()
		var wait time.Duration = -1
		if len(q.q) > 0 {
			c := q.q[0]
			if !c.due.After(now) {
				q.q[0] = chunk{}
				q.q = q.q[1:]
				q.bytes -= len(c.b)
				q.mu.Unlock()
				signal(q.space)
				return c, true, nil
			}
			wait = c.due.Sub(now)
		} else if q.closed {
			q.mu.Unlock()
			return chunk{}, false, nil
		}
		q.mu.Unlock()
		if deadline != nil {
			if dl := deadline(); !dl.IsZero() {
				left := dl.Sub(now)
				if left <= 0 {
					return chunk{}, true, os.ErrDeadlineExceeded
				}
				if wait < 0 || left < wait {
					wait = left
				}
			}
		}
		if wait < 0 {
			<-q.data
			continue
		}
		t := q.clk.NewTimer(wait)
		select {
		case <-t.C():
		case <-q.data:
			t.Stop()
		}
	}
}

// close stops pushes; pops drain what is queued.
func (q *delayQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	signal(q.data)
	signal(q.space)
}

// drop forgets what is queued (the reader is gone).
func (q *delayQueue) drop() {
	q.mu.Lock()
	for _, c := range q.q {
		if c.buf != nil {
			copybuf.Put(c.buf)
		}
	}
	q.q, q.bytes, q.closed = nil, 0, true
	q.mu.Unlock()
	signal(q.data)
	signal(q.space)
}
