package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// engine is what executors drive: VU allocation, the record channel and
// the shared read-only pieces of a run.
type engine struct {
	cfg          *Config
	clk          clock
	mix          *mix
	out          chan *batch
	batches      *batches
	bodyBlock    []byte
	serverMetric string
	observer     Observer

	mu     sync.Mutex
	vus    []*vu
	active atomic.Int64 // the vus gauge: VUs running iterations
	drops  atomic.Int64
}

// newVU allocates one more VU (vus_max grows by one).
func (e *engine) newVU() *vu {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := newVU(e, len(e.vus))
	e.vus = append(e.vus, v)
	return v
}

func (e *engine) allocated() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.vus)
}

// counts sums the VUs' live counters for the progress line.
func (e *engine) counts() (requests, failed, iterations, interrupted int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, v := range e.vus {
		requests += v.ctr.requests.Load()
		failed += v.ctr.failed.Load()
		iterations += v.ctr.iterations.Load()
		interrupted += v.ctr.interrupted.Load()
	}
	return
}

// loop runs iterations on v while more() allows and regular is not over;
// an iteration in flight when regular ends finishes under hard (k6's
// gracefulStop). The VU counts in the vus gauge while it loops.
func (e *engine) loop(regular, hard context.Context, v *vu, more func() bool) {
	e.active.Add(1)
	defer e.active.Add(-1)
	for regular.Err() == nil && more() {
		v.iterate(hard)
	}
}

// sampleGauges emits vus and vus_max shortly after the start (once the
// executor has its VUs) and then every second until ctx ends, as k6 does.
func (e *engine) sampleGauges(ctx context.Context, em *emitter, done chan<- struct{}) {
	defer close(done)
	emit := func() {
		r := record{kind: kindGauge, end: e.clk.now(), vus: e.active.Load(), vusMax: int64(e.allocated())}
		em.emit(&r)
		em.flush()
	}
	t := time.NewTimer(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			emit()
			t.Reset(time.Second)
		case <-ctx.Done():
			return
		}
	}
}

// deadlines returns the regular and hard contexts of a run that schedules
// work for regular and grants graceful more to iterations in flight.
func deadlines(ctx context.Context, start time.Time, regular, graceful time.Duration) (reg, hard context.Context, cancel func()) {
	hard, c1 := context.WithDeadline(ctx, start.Add(regular+graceful))
	reg, c2 := context.WithDeadline(hard, start.Add(regular))
	return reg, hard, func() { c2(); c1() }
}

// sleepUntil waits on t until the wall clock reaches at or done closes; it
// reports whether the time came (false: done).
func sleepUntil(t *time.Timer, at time.Time, done <-chan struct{}) bool {
	wait := time.Until(at)
	if wait <= 0 {
		select {
		case <-done:
			return false
		default:
			return true
		}
	}
	t.Reset(wait)
	select {
	case <-t.C:
		return true
	case <-done:
		t.Stop()
		return false
	}
}
