package exchange

import (
	"context"
	"time"
)

// Exchange is one request's passage through a box: its ids and the time
// each stage added, for the ledger and the optional Server-Timing entries.
type Exchange struct {
	Conn, Req uint64
	Timings   []Timing
	// Abort: the client left; abort its connection rather than answer
	// (Serve).
	Abort  bool
	body   *clientBody // the request's body as read from the client; nil without one
	answer answerWriter
}

// Timing is the time one stage added to a request.
type Timing struct {
	Name string
	Dur  time.Duration
}

// Key is the context key of a request's *Exchange; ConnKey of its
// connection's id (uint64).
type (
	Key     struct{}
	ConnKey struct{}
)

// From is the exchange of a request's context; an empty one outside a box.
func From(ctx context.Context) *Exchange {
	if ex, ok := ctx.Value(Key{}).(*Exchange); ok {
		return ex
	}
	return &Exchange{}
}

// AddTiming notes that a stage added d (only read when the box writes
// Server-Timing entries).
func (ex *Exchange) AddTiming(name string, d time.Duration) {
	ex.Timings = append(ex.Timings, Timing{name, d})
}
