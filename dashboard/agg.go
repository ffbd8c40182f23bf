// Package dashboard is middlebench's live page: per second, k6's phases
// stacked beside the server's own time, requests/s, statuses and
// failures, each stage's counters and the findings as they appear, fed
// over server-sent events; at the end the same page, with its data
// inlined, is a report saved as one self-contained HTML file. Its assets
// (uPlot, MIT) are embedded: nothing is fetched at run time.
package dashboard

import (
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// phaseNames are k6's phase trends, in the stacking order (nearest the
// axis first).
func phaseNames() []string {
	return []string{"blocked", "connecting", "tls_handshaking", "sending", "waiting", "receiving"}
}

const nPhases = 6

const (
	nShards   = 64  // a VU writes its own shard (vu mod nShards): no lock, little sharing
	maxStatus = 600 // statuses 0 (no response) … 599
)

// shard is one group of VUs' running totals. Each field is written by
// few goroutines (usually one) and read once a second by the sampler.
type shard struct {
	requests, failed, withServer atomic.Int64
	phase                        [nPhases]atomic.Int64 // ns, in phaseNames' order
	duration, server             atomic.Int64          // ns
	status                       [maxStatus]atomic.Int64
	_                            [64]byte // keep the next shard's counters off this cache line
}

// Aggregator totals the engine's requests as they end. It is a
// load.ResultObserver: set it as load.Options.Observer.
type Aggregator struct {
	shards [nShards]shard
	done   atomic.Pointer[load.Result]
}

// Observe adds one request (called by every VU at once).
func (a *Aggregator) Observe(vu int, o load.Observation) {
	s := &a.shards[uint(vu)%nShards]
	s.requests.Add(1)
	if o.Failed {
		s.failed.Add(1)
	}
	s.phase[0].Add(int64(o.Blocked))
	s.phase[1].Add(int64(o.Connecting))
	s.phase[2].Add(int64(o.TLS))
	s.phase[3].Add(int64(o.Sending))
	s.phase[4].Add(int64(o.Waiting))
	s.phase[5].Add(int64(o.Receiving))
	s.duration.Add(int64(o.Duration))
	if o.HasServer {
		s.withServer.Add(1)
		s.server.Add(int64(o.Server))
	}
	st := o.Status
	if st < 0 || st >= maxStatus {
		st = 0
	}
	s.status[st].Add(1)
}

// ObserveResult keeps the run's result (the report's summary).
func (a *Aggregator) ObserveResult(r *load.Result) { a.done.Store(r) }

// Result is the run's result once it ended (nil before).
func (a *Aggregator) Result() *load.Result { return a.done.Load() }

// Totals is the sum of every request so far.
type Totals struct {
	Requests, Failed, WithServer int64
	Phase                        [nPhases]time.Duration
	Duration, Server             time.Duration
	Status                       map[int]int64
}

// Totals sums the shards.
func (a *Aggregator) Totals() Totals {
	t := Totals{Status: map[int]int64{}}
	for i := range a.shards {
		s := &a.shards[i]
		t.Requests += s.requests.Load()
		t.Failed += s.failed.Load()
		t.WithServer += s.withServer.Load()
		for p := range s.phase {
			t.Phase[p] += time.Duration(s.phase[p].Load())
		}
		t.Duration += time.Duration(s.duration.Load())
		t.Server += time.Duration(s.server.Load())
		for code := range s.status {
			if n := s.status[code].Load(); n > 0 {
				t.Status[code] += n
			}
		}
	}
	return t
}
