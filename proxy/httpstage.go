package proxy

import (
	"context"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
)

// rejection is how a stage refuses a request: a status and a body, with
// the stage's defaults where the config left them out.
type rejection struct {
	status int
	body   string
}

func newRejection(status int, body string, defStatus int, defBody string) rejection {
	if status == 0 {
		status = defStatus
	}
	if body == "" {
		body = defBody
	}
	return rejection{status, body}
}

func (r rejection) send(w http.ResponseWriter) { reply(w, r.status, r.body) }

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
// waited and whether ctx ended it. On the wall clock the path waits on a
// precise.Sleeper (the runtime's timers wake 0.1–1 ms late on Linux: their
// poller has millisecond timeouts). The wait is made in two legs, most of
// it then the last 1 % (at least 2 ms) to the deadline: with 16 clients
// waiting at once a short last leg lands closer (BenchmarkDelayAccuracy
// measures the error of each way).
func (e *stageEnv) wait(ctx context.Context, d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, ctx.Err()
	}
	start := e.clock.Now()
	if coarse := d - max(2*time.Millisecond, d/100); coarse > 0 {
		if err := clock.Wait(ctx, e.clock, coarse); err != nil {
			return e.clock.Now().Sub(start), err
		}
	}
	err := clock.Wait(ctx, e.clock, start.Add(d).Sub(e.clock.Now()))
	return e.clock.Now().Sub(start), err
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

// matchAny compiles exprs into one expression that matches when any of
// them does; an item that does not compile is named.
func matchAny(field string, exprs []string) (*regexp.Regexp, error) {
	if _, err := compileAll(field, exprs); err != nil {
		return nil, err
	}
	return regexp.Compile("(?:" + strings.Join(exprs, ")|(?:") + ")")
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
