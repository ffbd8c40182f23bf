package proxy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/reqbody"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// WAFConfig is a body-inspecting security device: it reads the whole
// request (an upload pays before the server sees a byte), then inspects it
// for Delay (+ PerKiB of body), holding one of MaxConcurrent inspection
// slots, and blocks what the rules match.
type WAFConfig struct {
	Delay         units.Dist     `yaml:"delay"`         // inspection time: 450ms, normal:450ms,20ms …
	PerKiB        units.Duration `yaml:"perKiB"`        // extra inspection time per KiB of body
	MaxConcurrent int            `yaml:"maxConcurrent"` // inspections at once (0: unlimited)
	Queue         int            `yaml:"queue"`         // requests waiting for a slot beyond which 503 (0: unlimited)
	MaxBody       units.Size     `yaml:"maxBody"`       // bodies larger are refused 413 (default 64MiB)
	Block         []BlockRule    `yaml:"block"`
	BlockStatus   int            `yaml:"blockStatus"` // default 403
}

// BlockRule blocks a request when every regular expression it sets
// matches: the path, a header's value, the body.
type BlockRule struct {
	Path   string `yaml:"path"`
	Header string `yaml:"header"` // header name; Value is matched against it
	Value  string `yaml:"value"`
	Body   string `yaml:"body"`
}

// Kind is "waf".
func (*WAFConfig) Kind() string { return "waf" }

func (c *WAFConfig) compile() (Stage, error) {
	switch {
	case c.MaxConcurrent < 0:
		return nil, errField("maxConcurrent", "must not be negative")
	case c.Queue < 0:
		return nil, errField("queue", "must not be negative")
	case c.Queue > 0 && c.MaxConcurrent == 0:
		return nil, errField("queue", "needs maxConcurrent: without a capacity nothing queues")
	case c.MaxBody < 0:
		return nil, errField("maxBody", "must not be negative")
	}
	if err := checkStatus("blockStatus", c.BlockStatus); err != nil {
		return nil, err
	}
	rules, err := c.rules()
	if err != nil {
		return nil, err
	}
	s := &wafStage{cfg: *c, rules: rules, maxBody: int64(c.MaxBody), status: c.BlockStatus}
	if s.maxBody == 0 {
		s.maxBody = 64 << 20
	}
	if s.status == 0 {
		s.status = http.StatusForbidden
	}
	if c.MaxConcurrent > 0 {
		s.slots = make(chan struct{}, c.MaxConcurrent)
	}
	if c.Queue > 0 {
		s.waiting = make(chan struct{}, c.Queue)
	}
	return s, nil
}

type blockRule struct {
	path, value, body *regexp.Regexp
	header            string
}

func (c *WAFConfig) rules() ([]blockRule, error) {
	var out []blockRule
	for i, r := range c.Block {
		var br blockRule
		for _, x := range []struct {
			expr string
			dst  **regexp.Regexp
			name string
		}{{r.Path, &br.path, "path"}, {r.Value, &br.value, "value"}, {r.Body, &br.body, "body"}} {
			if x.expr == "" {
				continue
			}
			re, err := regexp.Compile(x.expr)
			if err != nil {
				return nil, errField("block", "rule %d %s %q: %v", i+1, x.name, x.expr, err)
			}
			*x.dst = re
		}
		if (r.Header == "") != (r.Value == "") {
			return nil, errField("block", "rule %d: header and value go together", i+1)
		}
		if br.path == nil && br.value == nil && br.body == nil {
			return nil, errField("block", "rule %d matches nothing: set path, header+value or body", i+1)
		}
		br.header = r.Header
		out = append(out, br)
	}
	return out, nil
}

type wafStage struct {
	bound
	cfg     WAFConfig
	rules   []blockRule
	slots   chan struct{}
	waiting chan struct{} // capacity = Queue: a token per waiting request
	maxBody int64
	status  int

	blocked, bodyBytes atomic.Int64
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (s *wafStage) extraCounts() map[string]int64 {
	return map[string]int64{"blocked": s.blocked.Load(), "bodyBytes": s.bodyBytes.Load()}
}

func (s *wafStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		ex := exchange.From(r.Context())
		entry := LedgerEntry{Conn: ex.Conn, Req: ex.Req}
		var body *bytes.Buffer
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			body = bodyPool.Get().(*bytes.Buffer)
			body.Reset()
			defer bodyPool.Put(body)
			n, err := body.ReadFrom(io.LimitReader(r.Body, s.maxBody+1))
			entry.Bytes = n
			s.bodyBytes.Add(n)
			if err != nil {
				s.env.bodyFailed(w, r, entry, err)
				return
			}
			if n > s.maxBody {
				s.c.reject(http.StatusRequestEntityTooLarge)
				entry.Action, entry.Status = ActRejected, http.StatusRequestEntityTooLarge
				s.env.record(entry)
				reply(w, http.StatusRequestEntityTooLarge, "middlebench waf: request body larger than maxBody\n")
				return
			}
		}
		queued, ok := s.acquire(r)
		if !ok {
			if r.Context().Err() != nil {
				return
			}
			s.c.reject(http.StatusServiceUnavailable)
			entry.Action, entry.Status = ActRejected, http.StatusServiceUnavailable
			entry.Note = "inspection queue full"
			s.env.record(entry)
			reply(w, http.StatusServiceUnavailable, "middlebench waf: inspection queue full\n")
			return
		}
		asked := s.cfg.Delay.Sample(s.rng(ex))
		if body != nil {
			asked += time.Duration(int64(s.cfg.PerKiB) * int64(body.Len()) / 1024)
		}
		applied, err := s.env.wait(r.Context(), asked)
		s.release()
		if s.slots != nil {
			s.c.addQueued(queued)
		}
		if asked > 0 {
			s.c.addDelay(applied)
			ex.AddTiming("waf", queued+applied)
		}
		entry.AskedMs, entry.AppliedMs, entry.QueuedMs = timing.Millis(asked), timing.Millis(applied), timing.Millis(queued)
		if err != nil {
			s.env.recordClientGone(r, entry, err)
			return
		}
		if s.matches(r, body) {
			s.c.reject(s.status)
			s.blocked.Add(1)
			entry.Action, entry.Status = ActRejected, s.status
			s.env.record(entry)
			reply(w, s.status, "middlebench waf: request blocked\n")
			return
		}
		if asked > 0 || queued > 0 {
			entry.Action = ActDelayed
			s.env.record(entry)
		}
		s.c.passed.Add(1)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
		}
		next.ServeHTTP(w, r)
	})
}

// instant: a request without a body, inspected in no time by a stage
// without a capacity, is passed or blocked at once.
func (s *wafStage) instant(r *http.Request) bool {
	return r.ContentLength == 0 && s.slots == nil && s.cfg.Delay.IsZero()
}

func (s *wafStage) rng(ex *exchange.Exchange) *rand.Rand {
	if s.cfg.Delay.IsFixed() {
		return nil
	}
	return s.env.rng(ex.Req)
}

// acquire takes an inspection slot, queueing when all are busy.
func (s *wafStage) acquire(r *http.Request) (time.Duration, bool) {
	if s.slots == nil {
		return 0, true
	}
	select {
	case s.slots <- struct{}{}:
		return 0, true
	default:
	}
	if s.waiting != nil {
		select {
		case s.waiting <- struct{}{}:
			defer func() { <-s.waiting }()
		default:
			return 0, false
		}
	}
	start := s.env.clock.Now()
	select {
	case s.slots <- struct{}{}:
		return s.env.clock.Now().Sub(start), true
	case <-r.Context().Done():
		return 0, false
	}
}

func (s *wafStage) release() {
	if s.slots != nil {
		<-s.slots
	}
}

func (s *wafStage) matches(r *http.Request, body *bytes.Buffer) bool {
	for _, rule := range s.rules {
		if rule.path != nil && !rule.path.MatchString(r.URL.Path) {
			continue
		}
		if rule.value != nil && !rule.value.MatchString(r.Header.Get(rule.header)) {
			continue
		}
		if rule.body != nil && (body == nil || !rule.body.Match(body.Bytes())) {
			continue
		}
		return true
	}
	return false
}

// bodyFailed answers a request whose body could not be read: a client
// that left is only recorded; a broken body (a chunk size of "zz") or one
// too slow is answered 400 or 408, and the connection closed, since its
// framing is lost.
func (e *stageEnv) bodyFailed(w http.ResponseWriter, r *http.Request, entry LedgerEntry, err error) {
	status, msg := reqbody.Status(r.Context(), err)
	if status == reqbody.StatusClientGone {
		e.recordClientGone(r, entry, err)
		return
	}
	e.c.reject(status)
	entry.Action, entry.Status, entry.Note = ActRejected, status, msg
	e.record(entry)
	w.Header().Set("Connection", "close")
	http.Error(w, "middlebench waf: "+msg, status)
}

// recordClientGone notes a request whose client left mid-way.
func (e *stageEnv) recordClientGone(r *http.Request, entry LedgerEntry, err error) {
	entry.Action, entry.Note = ActAborted, "client gone: "+err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil {
		entry.Note = "client gone before the request was complete"
	}
	e.c.reject(statusClientGone)
	e.record(entry)
}
