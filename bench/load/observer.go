package load

import "time"

// Observer sees each finished request as the engine measured it, from the
// VU's own goroutine, as it ends: a live view (the dashboard) aggregates
// them per second. Observe must not block or allocate much: it runs on the
// request path of every VU at once (shard by vu, or use atomics).
type Observer interface {
	Observe(vu int, r Observation)
}

// ResultObserver is an Observer that is also told the run's Result when
// the run ends (the dashboard's report and findings).
type ResultObserver interface {
	Observer
	ObserveResult(*Result)
}

// Observation is one finished request: its phases as k6 measures them,
// the server's own time from Server-Timing, its status (0: no response).
type Observation struct {
	End                         time.Duration // since the run's start
	Blocked, Connecting, TLS    time.Duration
	Sending, Waiting, Receiving time.Duration
	Duration                    time.Duration // sending + waiting + receiving
	Server                      time.Duration // Server-Timing's entry (0 when HasServer is false)
	HasServer                   bool
	Status                      int
	Failed                      bool // http_req_failed
}

// observe hands r to the run's observer, if any.
func (v *vu) observe(r *record) {
	o := v.e.observer
	if o == nil {
		return
	}
	o.Observe(v.id, Observation{End: time.Duration(r.end),
		Blocked: time.Duration(r.ph.blocked), Connecting: time.Duration(r.ph.connecting), TLS: time.Duration(r.ph.tls),
		Sending: time.Duration(r.ph.sending), Waiting: time.Duration(r.ph.waiting), Receiving: time.Duration(r.ph.receiving),
		Duration: time.Duration(r.ph.dur), Server: time.Duration(r.server), HasServer: r.hasServer,
		Status: int(r.status), Failed: r.failed})
}

// observeResult tells a ResultObserver how the run ended.
func observeResult(o Observer, res *Result) {
	if ro, ok := o.(ResultObserver); ok && res != nil {
		ro.ObserveResult(res)
	}
}
