package proxy

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/clock"
)

// reply answers a request from the stage itself, without the upstream.
func reply(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Connection", "keep-alive")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body)) // the client may be gone: nothing to do
}

// wait blocks on the stage's clock for d and returns how long it really
// waited and whether ctx ended it. Timers fire late by their slack: 50–100
// µs on bare Linux, 0.1–1 ms where the runtime's poller only has
// millisecond timeouts (measured on the 2-core VM middlebench is developed
// on: +0.3 to +0.8 ms for 20–450 ms timers). The path's running estimate of
// that slack is taken off each timer, so the wait applied is d within the
// slack's jitter rather than d plus the slack.
func (e *stageEnv) wait(ctx context.Context, d time.Duration) (time.Duration, error) {
	start := e.clock.Now()
	if d <= 0 {
		return 0, ctx.Err()
	}
	target := d - e.slack.get()
	err := clock.Wait(ctx, e.clock, target)
	took := e.clock.Now().Sub(start)
	if err == nil && target > 0 {
		e.slack.observe(took - target)
	}
	return took, err
}

// slack is a running estimate of how late timers fire (EWMA, 1/4 weight,
// bounded to [0, 2 ms]); shared by the stages of a path.
type slack struct{ ns atomic.Int64 }

func (s *slack) get() time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(s.ns.Load())
}

func (s *slack) observe(late time.Duration) {
	if s == nil {
		return
	}
	late = min(max(late, 0), 2*time.Millisecond)
	old := s.ns.Load()
	s.ns.Store(old + (int64(late)-old)/4) // a lost update between racing waiters is harmless
}

// clientIP is the request's peer address without the port.
func clientIP(r *http.Request) net.IP {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return net.ParseIP(host)
}

// compileAll compiles regular expressions, naming the field and item.
func compileAll(field string, exprs []string) ([]*regexp.Regexp, error) {
	out := make([]*regexp.Regexp, 0, len(exprs))
	for i, e := range exprs {
		re, err := regexp.Compile(e)
		if err != nil {
			return nil, errField(field, "item %d %q: %v", i+1, e, err)
		}
		out = append(out, re)
	}
	return out, nil
}

func checkStatus(field string, status int) error {
	if status != 0 && (status < 100 || status > 599) {
		return errField(field, "%d is not an HTTP status (100–599)", status)
	}
	return nil
}

func checkPercent(field string, p float64) error {
	if p < 0 || p > 100 || p != p {
		return errField(field, "%v: want a percentage from 0 to 100", p)
	}
	return nil
}
