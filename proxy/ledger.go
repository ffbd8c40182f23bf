package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// LedgerEntry is one line of the answer key: what one stage did to one
// connection or request. Times are in ms.
type LedgerEntry struct {
	Time      time.Time `json:"time"`
	Box       string    `json:"box"`
	Index     int       `json:"index"` // stage position in the box
	Stage     string    `json:"stage"` // stage kind
	Conn      uint64    `json:"conn,omitempty"`
	Req       uint64    `json:"req,omitempty"`
	Action    string    `json:"action"` // delayed, queued, rejected, shaped, handshake, reset, aborted, allowed
	AskedMs   float64   `json:"askedMs,omitempty"`
	AppliedMs float64   `json:"appliedMs,omitempty"`
	QueuedMs  float64   `json:"queuedMs,omitempty"`
	Status    int       `json:"status,omitempty"`
	Bytes     int64     `json:"bytes,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// Ledger actions.
const (
	ActDelayed   = "delayed"
	ActQueued    = "queued"
	ActRejected  = "rejected"
	ActShaped    = "shaped"
	ActHandshake = "handshake"
	ActReset     = "reset"
	ActAllowed   = "allowed"
	ActAborted   = "aborted"
)

// statusClientGone counts requests whose client left mid-way (nginx's 499).
const statusClientGone = 499

// ledger keeps the last limit entries of one box in memory and, when a
// writer is set, every entry as JSON lines. Stages write to it only when
// they act, so an inactive stage costs nothing here.
type ledger struct {
	mu      sync.Mutex
	ring    []LedgerEntry
	next    int
	full    bool
	dropped int64
	limit   int
	sink    *jsonlSink
}

func newLedger(limit int, sink *jsonlSink) *ledger {
	if limit <= 0 {
		limit = DefaultLedgerLimit
	}
	return &ledger{limit: limit, sink: sink}
}

// DefaultLedgerLimit is how many entries a box keeps in memory.
const DefaultLedgerLimit = 100_000

func (l *ledger) add(e LedgerEntry) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ring) < l.limit {
		l.ring = append(l.ring, e)
	} else {
		l.ring[l.next] = e
		l.next = (l.next + 1) % len(l.ring)
		l.full = true
		l.dropped++
	}
	l.sink.write(e)
}

// entries returns the kept entries, oldest first, and how many older ones
// were dropped from memory.
func (l *ledger) entries() ([]LedgerEntry, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LedgerEntry, 0, len(l.ring))
	if l.full {
		out = append(out, l.ring[l.next:]...)
		out = append(out, l.ring[:l.next]...)
	} else {
		out = append(out, l.ring...)
	}
	return out, l.dropped
}

// jsonlSink writes the ledger entries of all the boxes of a path to one
// writer, a whole line at a time.
type jsonlSink struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newJSONLSink(w io.Writer) *jsonlSink {
	if w == nil {
		return nil
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	return &jsonlSink{w: bw, enc: json.NewEncoder(bw)}
}

func (s *jsonlSink) write(e LedgerEntry) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = s.enc.Encode(e)
	}
	s.mu.Unlock()
}

func (s *jsonlSink) flush() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("ledger: %w", s.err)
	}
	return nil
}

// WriteJSONL writes entries as JSON lines.
func WriteJSONL(w io.Writer, entries []LedgerEntry) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("write ledger: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	return nil
}
