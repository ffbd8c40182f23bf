package fakeserver

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/cpuburn"
	"github.com/middlebench/middlebench/internal/reqbody"
	"github.com/middlebench/middlebench/internal/timing"
)

// ServeHTTP serves one request: admin paths, or queue → read → work → answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isAdminPath(r.URL.Path) {
		s.admin.ServeHTTP(w, r)
		return
	}
	start := s.clk.Now()
	s.stats.inFlight.Add(1)
	defer s.stats.inFlight.Add(-1)
	cs, _ := r.Context().Value(connKey{}).(*connState)
	if cs == nil { // served through another http.Server (tests, embedding)
		cs = &connState{rng: rand.New(rand.NewPCG(s.cfg.Seed, 0))}
	}
	if cs.mustClose(r) {
		w.Header()["Connection"] = connectionClose
	}

	sp, err := parseSpec(r.URL.RawQuery, s.def, s.lim)
	if err != nil {
		s.reject(w, r, cs, start, http.StatusBadRequest, err.Error())
		return
	}

	var t timings
	if s.slots != nil {
		if s.cfg.MaxQueue > 0 && s.queued.Load() >= int64(s.cfg.MaxQueue) && len(s.slots) == cap(s.slots) {
			s.reject(w, r, cs, start, http.StatusServiceUnavailable, "server busy: worker queue full")
			return
		}
		s.queued.Add(1)
		select {
		case s.slots <- struct{}{}:
			s.queued.Add(-1)
		case <-r.Context().Done():
			s.queued.Add(-1)
			s.clientGone(cs, t, start) // the client left while queued
		}
		defer func() { <-s.slots }()
		t.queue = s.since(start)
	}

	readStart := s.clk.Now()
	if err := s.readBody(r); err != nil {
		t.read = s.since(readStart)
		status, msg := reqbody.Status(r.Context(), err)
		if status == reqbody.StatusClientGone {
			s.clientGone(cs, t, start)
		}
		// The body's framing is lost: answer, then close.
		w.Header()["Connection"] = connectionClose
		w.Header()["Server-Timing"] = []string{serverTiming(t)}
		http.Error(w, msg, status)
		s.record(cs, status, t, start)
		return
	}
	t.read = s.since(readStart)

	workStart := s.clk.Now()
	if err := s.work(r.Context(), cs, sp); err != nil {
		t.app = s.since(workStart)
		s.clientGone(cs, t, start)
	}
	t.app = s.since(workStart)

	h := w.Header()
	h["Server-Timing"] = []string{serverTiming(t)}
	h["Content-Type"] = contentTypeText
	zp := s.gzipFor(r)
	if zp != nil {
		h["Content-Encoding"] = contentEncodingGzip
		h["Vary"] = varyAcceptEncoding
	} else if bodyAllowed(r, sp.status) {
		h["Content-Length"] = []string{strconv.FormatInt(sp.size, 10)}
	}
	w.WriteHeader(sp.status)
	if s.writeCap != nil {
		// Headers go out at once, as behind an egress shaper: the first
		// byte (k6's waiting) is the work, the capped body is receiving.
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	if bodyAllowed(r, sp.status) && sp.size > 0 {
		cw := &countingWriter{ctx: r.Context(), w: w, cap: s.writeCap, n: &s.stats.bytesOut}
		_ = writeBody(cw, sp.size, zp) // a write error is the client leaving; the status is still what we answered
	}
	s.record(cs, sp.status, t, start)
}

var (
	connectionClose     = []string{"close"}
	contentTypeText     = []string{"text/plain; charset=utf-8"}
	contentEncodingGzip = []string{"gzip"}
	varyAcceptEncoding  = []string{"Accept-Encoding"}
)

// clientGone records a request whose client left (499) and ends it
// without an answer: the connection is aborted. Returning would let
// net/http answer an empty 200, which a client that only half-closed its
// side would read as success.
func (s *Server) clientGone(cs *connState, t timings, start time.Time) {
	s.record(cs, reqbody.StatusClientGone, t, start)
	panic(http.ErrAbortHandler)
}

// since is the time passed on the server's clock.
func (s *Server) since(t time.Time) time.Duration { return s.clk.Now().Sub(t) }

func (s *Server) record(cs *connState, status int, t timings, start time.Time) {
	t.handler = s.since(start)
	s.stats.record(cs.shard, status, t)
}

// reject answers at once with a status and a one-line reason.
func (s *Server) reject(w http.ResponseWriter, r *http.Request, cs *connState, start time.Time, status int, msg string) {
	w.Header()["Server-Timing"] = []string{serverTiming(timings{})}
	http.Error(w, msg, status)
	s.record(cs, status, timings{}, start)
}

// readBody drains the request body, paying the read cap piece by piece:
// while the server does not read, the client's socket buffers fill and its
// writes block, as with a server that reads uploads slowly (E2).
func (s *Server) readBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := (*bp)[:s.readCap.Piece(len(*bp))]
	for {
		n, err := r.Body.Read(buf)
		if n > 0 {
			s.stats.bytesIn.Add(int64(n))
			if _, perr := s.readCap.Wait(r.Context(), n); perr != nil {
				return perr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// work sleeps for a draw of the work distribution (cut at the server's
// bound), then burns CPU; both end early when ctx does (the client left,
// the server shuts down).
func (s *Server) work(ctx context.Context, cs *connState, sp spec) error {
	var d time.Duration
	if sp.work.IsFixed() {
		d = sp.work.Sample(nil)
	} else {
		cs.mu.Lock()
		d = sp.work.Sample(cs.rng)
		cs.mu.Unlock()
	}
	if err := clock.Wait(ctx, s.clk, min(d, s.lim.work)); err != nil {
		return err
	}
	_, err := cpuburn.BurnContext(ctx, sp.cpu)
	return err
}

// serverTiming formats the W3C Server-Timing header: the app's own time
// first, then queueing and reading, in ms with µs precision.
func serverTiming(t timings) string {
	var b [96]byte
	out := append(b[:0], "app;dur="...)
	out = strconv.AppendFloat(out, timing.Millis(t.app), 'f', 3, 64)
	out = append(out, ", queue;dur="...)
	out = strconv.AppendFloat(out, timing.Millis(t.queue), 'f', 3, 64)
	out = append(out, ", read;dur="...)
	out = strconv.AppendFloat(out, timing.Millis(t.read), 'f', 3, 64)
	return string(out)
}

// gzipFor returns the gzip pool when the server gzips and the client accepts it.
func (s *Server) gzipFor(r *http.Request) *sync.Pool {
	if !s.cfg.Gzip {
		return nil
	}
	for _, v := range r.Header["Accept-Encoding"] {
		for _, enc := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(enc), ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") && qualityAboveZero(params) {
				return s.gzip
			}
		}
	}
	return nil
}

// qualityAboveZero reads an Accept-Encoding entry's parameters: "q=0"
// means "not this one"; no q means q=1.
func qualityAboveZero(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q > 0
		}
	}
	return true
}

// bodyAllowed: HEAD, 204 and 304 carry no body.
func bodyAllowed(r *http.Request, status int) bool {
	return r.Method != http.MethodHead && status != http.StatusNoContent && status != http.StatusNotModified
}

func sortedStrings(s []string) []string { sort.Strings(s); return s }
