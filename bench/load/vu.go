package load

import (
	"compress/gzip"
	"context"
	"github.com/middlebench/middlebench/internal/cpuburn"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// vuCounters are read by the progress line while the VU runs.
type vuCounters struct {
	requests, failed, iterations, interrupted atomic.Int64
}

// vu is one virtual user: its own transport (connection pool) and lean
// client, tracer, prepared requests and record buffer. Only its own
// goroutine uses it, except the counters, the timeout callback and the
// lean client's abort.
type vu struct {
	id  int
	e   *engine
	tr  *http.Transport
	h1  *h1client // nil unless the engine's requests all go through the lean client
	io  ioCount
	trc *tracer
	rng *rand.Rand
	buf []byte
	em  emitter
	ctr vuCounters
	gz  *gzip.Reader

	// The request context: derived from the VU's context of the moment,
	// carrying the trace and cancelled by the timeout timer. It and the
	// requests bound to it are rebuilt only after a timeout or error.
	mu        sync.Mutex // guards reqCancel against the timer callback
	parent    context.Context
	reqCtx    context.Context
	reqCancel context.CancelFunc
	reqs      []*http.Request
	timer     *time.Timer
	fired     chan struct{}
	sleeper   *time.Timer
	firstErr  map[uint16]string // an example message per error code
	redirects int
	iterStart int64
}

func newVU(e *engine, id int) *vu {
	v := &vu{
		id:       id,
		e:        e,
		trc:      newTracer(e.clk),
		rng:      rand.New(rand.NewPCG(uint64(id)+1, uint64(e.clk.base.UnixNano()))),
		buf:      make([]byte, 16<<10),
		em:       e.emitter(),
		fired:    make(chan struct{}, 1),
		firstErr: map[uint16]string{},
	}
	dial := vuDialer(e.cfg, &v.io, e.dial)
	v.tr = newTransport(e.cfg, dial)
	if e.h1Addr != "" {
		v.h1 = newH1Client(e.h1Addr, dial, &v.io, e.cfg.NoConnectionReuse)
	}
	v.timer = time.AfterFunc(time.Hour, v.onTimeout)
	v.timer.Stop()
	v.sleeper = time.NewTimer(time.Hour)
	v.sleeper.Stop()
	return v
}

func (v *vu) onTimeout() {
	v.mu.Lock()
	cancel := v.reqCancel
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	v.fired <- struct{}{}
}

// bind makes the request context and requests current for parent.
func (v *vu) bind(parent context.Context) {
	if v.reqCtx != nil && v.parent == parent && v.reqCtx.Err() == nil {
		return
	}
	v.mu.Lock()
	if v.reqCancel != nil {
		v.reqCancel()
	}
	v.parent = parent
	ctx, cancel := context.WithCancel(parent)
	v.reqCtx, v.reqCancel = ctx, cancel
	v.mu.Unlock()
	if v.h1 != nil {
		v.h1.watch(ctx)
	}
	traced := contextWithTrace(ctx, v.trc)
	v.reqCtx = traced
	v.reqs = v.reqs[:0]
	for _, t := range v.e.mix.targets {
		v.reqs = append(v.reqs, t.newRequest(traced))
	}
}

// invalidate forces a fresh tracer, context and requests for the next
// request: after an error or timeout a late httptrace hook or a transport
// still holding the request must not touch the next one.
func (v *vu) invalidate() {
	v.trc = newTracer(v.e.clk)
	v.reqCtx = nil
}

// iterate runs one iteration under ctx: a request of the mix (following
// redirects), the client CPU work, the think time. It reports whether the
// iteration completed; an iteration cut by ctx (graceful stop, ramp-down,
// Ctrl-C) is interrupted, and its cut request is not recorded, as k6 does.
func (v *vu) iterate(ctx context.Context) bool {
	start := v.e.clk.now()
	v.em.flushBy(start)
	ok := v.request(ctx, v.e.mix.pick(v.rng))
	if ok && v.e.cfg.ClientCPU > 0 {
		cpuburn.SpinMillis(v.e.cfg.ClientCPU.D().Milliseconds())
	}
	if ok && !v.e.cfg.Think.IsZero() {
		ok = v.sleep(ctx, v.e.cfg.Think.Sample(v.rng))
	}
	if v.e.cfg.NoVUConnectionReuse {
		v.tr.CloseIdleConnections()
		if v.h1 != nil {
			v.h1.closeConn()
		}
	}
	end := v.e.clk.now()
	r := record{kind: kindIteration, end: end, iterDur: end - start, interrupted: !ok,
		sent: v.io.sent.Swap(0), recv: v.io.received.Swap(0)}
	v.em.emit(&r)
	if ok {
		v.ctr.iterations.Add(1)
	} else {
		v.ctr.interrupted.Add(1)
	}
	return ok
}

func (v *vu) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	v.em.flushBy(v.e.clk.now() + int64(d))
	v.sleeper.Reset(d)
	select {
	case <-v.sleeper.C:
		return true
	case <-ctx.Done():
		v.sleeper.Stop()
		return false
	}
}

// close releases the VU's connections and hands over its last records.
func (v *vu) close() {
	v.mu.Lock()
	if v.reqCancel != nil {
		v.reqCancel()
	}
	v.mu.Unlock()
	v.timer.Stop()
	v.tr.CloseIdleConnections()
	if v.h1 != nil {
		v.h1.close()
	}
	v.em.flush()
}
