package fakeserver

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// stats is the server's own view. Counters are atomics; the histograms are
// sharded by connection (HTTP/1.1 requests on one connection are
// sequential), so a shard's lock is practically never contended and no lock
// is shared by all requests.
type stats struct {
	requests atomic.Int64
	inFlight atomic.Int64
	bytesIn  atomic.Int64
	bytesOut atomic.Int64
	status   [600]atomic.Int64
	since    atomic.Int64 // unix ns of start or last reset
	shards   []shard
}

type shard struct {
	mu                        sync.Mutex
	app, queue, read, handler *timing.Trend
	_                         [64]byte // keep neighbouring shards' locks off one cache line
}

// timings is what one request spent in each part of the server.
type timings struct {
	queue, read, app, handler time.Duration
}

func newStats(shards int) *stats {
	s := &stats{shards: make([]shard, shards)}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.app, sh.queue, sh.read, sh.handler = timing.NewTrend(), timing.NewTrend(), timing.NewTrend(), timing.NewTrend()
	}
	s.since.Store(time.Now().UnixNano())
	return s
}

func (s *stats) record(shardIdx uint64, status int, t timings) {
	sh := &s.shards[shardIdx%uint64(len(s.shards))]
	sh.mu.Lock()
	sh.app.Add(t.app)
	sh.queue.Add(t.queue)
	sh.read.Add(t.read)
	sh.handler.Add(t.handler)
	sh.mu.Unlock()
	if status >= 0 && status < len(s.status) {
		s.status[status].Add(1)
	}
	s.requests.Add(1)
}

// reset starts a new window; requests in flight are counted in the new one.
func (s *stats) reset() {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		sh.app.Reset()
		sh.queue.Reset()
		sh.read.Reset()
		sh.handler.Reset()
		sh.mu.Unlock()
	}
	for i := range s.status {
		s.status[i].Store(0)
	}
	s.requests.Store(0)
	s.bytesIn.Store(0)
	s.bytesOut.Store(0)
	s.since.Store(time.Now().UnixNano())
}

// merged returns the four trends merged over all shards.
func (s *stats) merged() (app, queue, read, handler *timing.Trend) {
	app, queue, read, handler = timing.NewTrend(), timing.NewTrend(), timing.NewTrend(), timing.NewTrend()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		app.Merge(sh.app)
		queue.Merge(sh.queue)
		read.Merge(sh.read)
		handler.Merge(sh.handler)
		sh.mu.Unlock()
	}
	return app, queue, read, handler
}

// view renders the server's view as the results document carries it.
func (s *stats) view(workers int) timing.ServerView {
	app, queue, read, handler := s.merged()
	stats := append(timing.FullTrendStats(), "count")
	values := func(t *timing.Trend) map[string]float64 {
		v, _ := t.Values(stats) // the stat names are fixed and valid
		return v
	}
	v := timing.ServerView{
		Requests:    s.requests.Load(),
		InFlight:    s.inFlight.Load(),
		Statuses:    map[string]int64{},
		BytesIn:     s.bytesIn.Load(),
		BytesOut:    s.bytesOut.Load(),
		WindowMs:    float64(time.Now().UnixNano()-s.since.Load()) / 1e6,
		Workers:     workers,
		ServerTime:  values(app),
		QueueTime:   values(queue),
		ReadTime:    values(read),
		HandlerTime: values(handler),
		Histograms:  map[string]string{},
	}
	for code := range s.status {
		if n := s.status[code].Load(); n > 0 {
			v.Statuses[strconv.Itoa(code)] = n
		}
	}
	for name, t := range map[string]*timing.Trend{"server_time": app, "queue_time": queue, "read_time": read, "handler_time": handler} {
		if enc, err := t.Encode(); err == nil {
			v.Histograms[name] = enc
		}
	}
	return v
}
