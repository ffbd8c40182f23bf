package load

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// engine is what one scenario's executor drives: VU allocation, the record
// channel and the shared read-only pieces of a run. A run of several
// scenarios has one engine per scenario, all sending to one collector.
type engine struct {
	scen         uint8 // index in the run, stamped on every record
	cfg          *Config
	clk          clock
	mix          *mix
	out          chan *batch
	batches      *batches
	serverMetric string
	debug        *httpDebug                                                        // nil unless --http-debug
	dial         func(ctx context.Context, network, addr string) (net.Conn, error) // Options.Dial
	observer     Observer
	// h1Addr is where the lean client sends every request (mix.h1Addr);
	// "" when net/http sends them (and under --http-debug, whose dumps are
	// net/http's).
	h1Addr string

	mu     sync.Mutex
	vus    []*vu
	handed int          // VUs given to the executor (the rest were initialized ahead)
	active atomic.Int64 // the vus gauge: VUs running iterations
	drops  atomic.Int64
}

// emitter returns a record buffer for one producer of this scenario.
func (e *engine) emitter() emitter {
	return emitter{out: e.out, pool: e.batches, scen: e.scen}
}

// newVU hands the executor a VU: one initialized before the run (see
// initVUs), or one more (vus_max grows by one).
func (e *engine) newVU() *vu {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.handed < len(e.vus) {
		e.handed++
		return e.vus[e.handed-1]
	}
	v := newVU(e, len(e.vus))
	e.vus = append(e.vus, v)
	e.handed++
	return v
}

// initVUs initializes n VUs before the run starts, as k6 initializes every
// scenario's VUs (pre-allocated ones for arrival rates) up front: vus_max
// counts a later scenario's VUs from the first second.
func (e *engine) initVUs(n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(e.vus) < n {
		e.vus = append(e.vus, newVU(e, len(e.vus)))
	}
}

// closeUnused releases the VUs initialized ahead that no executor took.
func (e *engine) closeUnused() {
	e.mu.Lock()
	idle := e.vus[e.handed:]
	e.mu.Unlock()
	for _, v := range idle {
		v.close()
	}
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

// engines are the scenarios of one run.
type engines []*engine

func (es engines) active() (n int64) {
	for _, e := range es {
		n += e.active.Load()
	}
	return n
}

func (es engines) allocated() (n int) {
	for _, e := range es {
		n += e.allocated()
	}
	return n
}

func (es engines) drops() (n int64) {
	for _, e := range es {
		n += e.drops.Load()
	}
	return n
}

func (es engines) counts() (requests, failed, iterations, interrupted int64) {
	for _, e := range es {
		r, f, i, x := e.counts()
		requests, failed, iterations, interrupted = requests+r, failed+f, iterations+i, interrupted+x
	}
	return
}

// sampleGauges emits vus and vus_max (over every scenario) every second
// from the start until ctx ends, as k6 v1.8.1 does: its first sample is
// one second in, so a shorter run has no vus at all (and k6's files then
// leave the gauges out).
func (es engines) sampleGauges(ctx context.Context, clk clock, em *emitter, done chan<- struct{}) {
	defer close(done)
	emit := func() {
		r := record{kind: kindGauge, end: clk.now(), vus: es.active(), vusMax: int64(es.allocated())}
		em.emit(&r)
		em.flush()
	}
	t := time.NewTimer(time.Second)
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
