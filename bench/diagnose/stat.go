package diagnose

import (
	"encoding/json"
	"fmt"
	"math"
)

// Stat summarises one timing in milliseconds, as k6 reports a trend. A stat
// the source did not carry is 0; a Stat whose every field is 0 is absent
// (Present reports false), which is also how a phase that never took time
// reads, so rules treat both alike.
type Stat struct {
	Count int64 // values aggregated; 0 when the source does not say
	Avg   float64
	Min   float64
	Med   float64
	Max   float64
	P90   float64
	P95   float64
	P99   float64
	// noPercentiles: the source kept count, avg, min and max but no
	// distribution (a stream's phase without a histogram), so the zero
	// percentiles are unknown, not 0.
	noPercentiles bool
}

// Present reports whether the source carried anything for this timing.
func (s Stat) Present() bool { return s != Stat{} }

// Tail returns the p95, or the p90, or the average when the source gave
// no distribution (an APM figure copied by hand, a stream's phase kept
// without a histogram): the value a rule reads as "most requests see this".
func (s Stat) Tail() float64 {
	switch {
	case s.P95 != 0:
		return s.P95
	case s.P90 != 0:
		return s.P90
	case s.Max != 0 && !s.noPercentiles:
		// A full distribution whose p95 is 0: most requests saw nothing
		// (a TLS delay paid only by each reused connection's first request).
		return 0
	}
	return s.Avg
}

// Peak returns the largest value the source gave (max, else p99, else p95):
// what only a few requests see, e.g. the first one on each connection.
func (s Stat) Peak() float64 {
	switch {
	case s.Max != 0:
		return s.Max
	case s.P99 != 0:
		return s.P99
	}
	return s.Tail()
}

// statKeys are k6's names for the fields of a Stat, in its order.
var statKeys = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "count"}

// field returns a pointer to the field k6 calls name (nil if none).
func (s *Stat) field(name string) *float64 {
	switch name {
	case "avg":
		return &s.Avg
	case "min":
		return &s.Min
	case "med", "p(50)":
		return &s.Med
	case "max":
		return &s.Max
	case "p(90)":
		return &s.P90
	case "p(95)":
		return &s.P95
	case "p(99)":
		return &s.P99
	}
	return nil
}

// set stores one k6-named value; it reports false for names a Stat has no
// field for (other percentiles such as p(99.9) are simply not kept).
func (s *Stat) set(name string, v float64) bool {
	if name == "count" {
		s.Count = int64(v)
		return true
	}
	if f := s.field(name); f != nil {
		*f = v
		return true
	}
	return false
}

// statFromValues builds a Stat from k6 trend values ({"avg": …, "p(95)": …}).
func statFromValues(v map[string]float64) Stat {
	var s Stat
	for k, x := range v {
		s.set(k, x)
	}
	return s
}

// MarshalJSON writes k6's keys; absent values are left out.
func (s Stat) MarshalJSON() ([]byte, error) {
	m := make(map[string]float64, len(statKeys))
	for _, k := range statKeys {
		var v float64
		if k == "count" {
			v = float64(s.Count)
		} else {
			v = *s.field(k)
		}
		if v != 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			m[k] = round6(v)
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads k6's keys.
func (s *Stat) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	*s = statFromValues(m)
	return nil
}

// round6 keeps nanosecond precision of a millisecond value for printing.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Phases holds a run's timings: k6's http_req_* phases and the server's own
// time, all in ms.
type Phases struct {
	Blocked    Stat `json:"blocked"`
	Connecting Stat `json:"connecting"`
	TLS        Stat `json:"tls_handshaking"`
	Sending    Stat `json:"sending"`
	Waiting    Stat `json:"waiting"`
	Receiving  Stat `json:"receiving"`
	Duration   Stat `json:"duration"`
	// Server is the time the server reports for itself per request, from
	// Server-Timing (k6's custom trend, e.g. server_time).
	Server Stat `json:"server_time"`
	// ServerQueue is the time the server reports waiting for a worker
	// (Server-Timing queue;dur=, as the trend server_queue): the server's
	// own, not time outside it.
	ServerQueue Stat `json:"server_queue"`
}

// phaseIndex names the timings a reader aggregates, in Phases' order.
type phaseIndex int

const (
	phBlocked phaseIndex = iota
	phConnecting
	phTLS
	phSending
	phWaiting
	phReceiving
	phDuration
	phServer
	phServerQueue
	nPhases
)

// k6Names are k6's metric names of the phases (server: the default name of
// the custom trend; readers can be told another).
var k6Names = [nPhases]string{
	"http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
	"http_req_sending", "http_req_waiting", "http_req_receiving",
	"http_req_duration", "server_time", "server_queue",
}

// at returns the Stat of phase i.
func (p *Phases) at(i phaseIndex) *Stat {
	switch i {
	case phBlocked:
		return &p.Blocked
	case phConnecting:
		return &p.Connecting
	case phTLS:
		return &p.TLS
	case phSending:
		return &p.Sending
	case phWaiting:
		return &p.Waiting
	case phReceiving:
		return &p.Receiving
	case phDuration:
		return &p.Duration
	case phServerQueue:
		return &p.ServerQueue
	}
	return &p.Server
}

// phaseOf maps a k6 metric name to its phase; serverMetric names the
// server-time trend.
func phaseOf(name, serverMetric string) (phaseIndex, bool) {
	if name == serverMetric {
		return phServer, true
	}
	for i, n := range k6Names[:phServer] {
		if n == name {
			return phaseIndex(i), true
		}
	}
	return 0, false
}
