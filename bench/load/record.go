package load

import "time"

// recKind says what a record reports.
type recKind uint8

const (
	kindRequest   recKind = iota + 1 // one HTTP request (a redirect hop is one too)
	kindIteration                    // one iteration ended (complete or interrupted)
	kindDropped                      // an arrival found no free VU
	kindGauge                        // vus and vus_max, sampled
)

// record is what a VU hands the collector; fixed size, no pointers, so a
// batch of them is one allocation that is reused.
type record struct {
	kind        recKind
	class       errClass
	proto       uint8 // 10, 11, 20
	failed      bool  // http_req_failed: status outside 200–399 or no response
	hasServer   bool
	hasQueue    bool
	interrupted bool
	scen        uint8 // the scenario's index in the run (0 when it has one)
	target      uint16
	status      uint16 // 0 when there was no response
	code        uint16 // k6 error code; 1000+status for HTTP errors ≥ 400
	tlsVersion  uint16
	end         int64 // ns since the run's base
	ph          phases
	server      int64 // server_time in ns
	queue       int64 // server_queue in ns
	iterDur     int64
	sent, recv  int64 // bytes of the iteration (kindIteration)
	vus, vusMax int64 // kindGauge
}

// batchSize records go to the collector at once: few channel operations
// per second, little held per VU.
const batchSize = 64

type batch struct{ recs []record }

// batches recycles batch buffers between VUs and the collector.
type batches struct{ free chan *batch }

func newBatches() *batches { return &batches{free: make(chan *batch, 1024)} }

func (b *batches) get() *batch {
	select {
	case x := <-b.free:
		return x
	default:
		return &batch{recs: make([]record, 0, batchSize)}
	}
}

func (b *batches) put(x *batch) {
	x.recs = x.recs[:0]
	select {
	case b.free <- x:
	default:
	}
}

// flushAfter bounds how long a record waits in a producer's batch. k6
// evaluates thresholds (abortOnFail) every 2 s on what reached it; a VU
// with 300 ms of think time fills its 64 records in 10 s.
const flushAfter = int64(time.Second)

// emitter buffers one producer's records (a VU, the scheduler, the gauge
// sampler) and sends them in batches; it is not safe for concurrent use.
type emitter struct {
	out    chan<- *batch
	pool   *batches
	cur    *batch
	oldest int64 // end of the first record in cur
	scen   uint8 // stamped on every record
}

func (e *emitter) emit(r *record) {
	r.scen = e.scen
	if e.cur == nil {
		e.cur = e.pool.get()
	}
	if len(e.cur.recs) == 0 {
		e.oldest = r.end
	}
	e.cur.recs = append(e.cur.recs, *r)
	if len(e.cur.recs) == cap(e.cur.recs) {
		e.flush()
	}
}

// flushBy hands over the batch if its oldest record would be older than
// flushAfter at `at` (ns since the run's base): before an iteration and
// before a sleep, so a record reaches the collector within about a
// second plus one request.
func (e *emitter) flushBy(at int64) {
	if e.cur != nil && len(e.cur.recs) > 0 && at-e.oldest >= flushAfter {
		e.flush()
	}
}

func (e *emitter) flush() {
	if e.cur == nil || len(e.cur.recs) == 0 {
		return
	}
	e.out <- e.cur
	e.cur = nil
}
