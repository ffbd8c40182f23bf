package h1loop

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// TestWaitListLinks: requests stay linked in the order they began
// waiting, whichever leaves (the front, the middle, the end, one already
// taken out by a tick), so that a tick's scan from the front sees the
// longest-waiting first.
func TestWaitListLinks(t *testing.T) {
	l := &waitList{done: make(chan struct{})}
	l.running.Store(true) // add starts no ticker
	sh := &l.shards[0]    // the connection id of every ctx below is 0
	ctxs := make([]*leanCtx, 5)
	t0 := time.Unix(1000, 0)
	for i := range ctxs {
		ctxs[i] = &leanCtx{}
		l.add(ctxs[i], t0.Add(time.Duration(i)*time.Millisecond))
	}
	order := func() []int {
		var got []int
		for c := sh.head; c != nil; c = c.wait.next {
			for i, x := range ctxs {
				if x == c {
					got = append(got, i)
				}
			}
		}
		var back []int
		for c := sh.tail; c != nil; c = c.wait.prev {
			for i, x := range ctxs {
				if x == c {
					back = append([]int{i}, back...)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(back) || len(got) != sh.n {
			t.Fatalf("forward %v, backward %v, n %d", got, back, sh.n)
		}
		return got
	}
	for _, step := range []struct {
		remove int
		want   string
	}{{2, "[0 1 3 4]"}, {0, "[1 3 4]"}, {4, "[1 3]"}, {4, "[1 3]"}, {1, "[3]"}, {3, "[]"}} {
		l.remove(ctxs[step.remove])
		if got := fmt.Sprint(order()); got != step.want {
			t.Fatalf("after removing %d: %s, want %s", step.remove, got, step.want)
		}
	}
	if sh.head != nil || sh.tail != nil {
		t.Fatalf("empty list with head %p, tail %p", sh.head, sh.tail)
	}
	l.add(ctxs[1], t0)
	if got := fmt.Sprint(order()); got != "[1]" {
		t.Fatalf("added again: %s", got)
	}
}

// tickedWaitList is a box's wait list on its own, its ticker stopped and
// waited for when the test ends.
func tickedWaitList(tb testing.TB) *waitList {
	l := &waitList{done: make(chan struct{}), wg: &sync.WaitGroup{}}
	tb.Cleanup(func() {
		close(l.done)
		l.wg.Wait()
	})
	return l
}

// waitBriefly adds ctx to l and removes it. It begins waiting an hour
// from now, so no tick finds it waiting long and starts its watch, which
// would need a connection the tests' requests do not have.
func waitBriefly(l *waitList, ctx *leanCtx) {
	l.add(ctx, time.Now().Add(time.Hour))
	l.remove(ctx)
}

// TestWaitListTicksBackOff: while no request waits longer than
// watchAfter, the gaps between ticks double up to watchTickMax, so a box
// whose next hop answers at once is not woken every millisecond (the
// 1 ms ticker it had woke it 1,000 times a second). The test waits for
// each of the first ticks and checks it came no earlier than the gaps
// allow: a busy machine can only make them later.
func TestWaitListTicksBackOff(t *testing.T) {
	l := tickedWaitList(t)
	ctx := &leanCtx{}
	t0 := time.Now()
	l.add(ctx, time.Now().Add(time.Hour)) // waiting, but never longer than watchAfter
	earliest, gap := time.Duration(0), watchAfter
	for k := int64(1); k <= 12; k++ { // the gaps watchAfter, 2×, 4× … then watchTickMax, six times
		earliest += gap
		gap = min(gap*2, watchTickMax)
		for deadline := time.Now().Add(5 * time.Second); l.ticks.Load() < k; time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatalf("tick %d not come 5 s after tick %d", k, k-1)
			}
		}
		if at := time.Since(t0); at < earliest {
			t.Errorf("tick %d at %v, before %v: the gaps do not double up to %v", k, at, earliest, watchTickMax)
		}
	}
}

// TestWaitListTickerRestarts: the ticker stops after a second with nothing
// waiting, and a request that begins waiting after it stopped starts
// another.
func TestWaitListTickerRestarts(t *testing.T) {
	l := tickedWaitList(t)
	ctx := &leanCtx{}
	waitBriefly(l, ctx)
	for deadline := time.Now().Add(5 * time.Second); l.running.Load(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ticker still runs 5 s after the last request left")
		}
	}
	l.wg.Wait() // it has returned
	before := l.ticks.Load()
	l.add(ctx, time.Now().Add(time.Hour)) // waiting, but never longer than watchAfter
	if !l.running.Load() {
		t.Fatal("a request began waiting and no ticker started")
	}
	for deadline := time.Now().Add(5 * time.Second); l.ticks.Load() == before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no tick in 5 s after the restart")
		}
	}
}

// TestWaitListShardsConcurrently: requests of many connections begin and
// end waiting at once (the race detector checks the shards' locks), and
// the list is empty after them.
func TestWaitListShardsConcurrently(t *testing.T) {
	l := tickedWaitList(t)
	var clients sync.WaitGroup
	for conn := range uint64(40) {
		clients.Go(func() {
			for range 500 {
				waitBriefly(l, &leanCtx{exchange: exchange.Exchange{Conn: conn}})
			}
		})
	}
	clients.Wait()
	if n := l.waiting(); n != 0 {
		t.Errorf("%d requests left in the list", n)
	}
	for i := range l.shards {
		if s := &l.shards[i]; s.head != nil || s.tail != nil {
			t.Errorf("shard %d: head %p, tail %p after every request left", i, s.head, s.tail)
		}
	}
}

// BenchmarkWaitListParallel: what a request's add and remove cost while
// every CPU's connections do the same (one list per box: a single lock
// there would be met by every request).
func BenchmarkWaitListParallel(b *testing.B) {
	l := tickedWaitList(b)
	var conns atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		ctx := &leanCtx{exchange: exchange.Exchange{Conn: conns.Add(1)}}
		for pb.Next() {
			waitBriefly(l, ctx)
		}
	})
}
