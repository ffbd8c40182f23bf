package merge

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// What the receiver holds back from a stranger: a PUT needs the shared
// token (when there is one: always beyond loopback); at most MaxUploads
// bodies are read at once (more: 503, which the sender retries) and the
// documents held together stay within MaxHeld bytes (more: 413); every
// document's counts must add up with its duration and its histograms.
const (
	defaultMaxUploads = 2
	defaultMaxHeld    = 1 << 30
)

// authorized reports whether r carries token: "Authorization: Bearer
// TOKEN", or TOKEN as the password of basic authentication (what a URL
// http://user:TOKEN@host/… sends). An empty token authorizes every request
// (a receiver on loopback).
func authorized(r *http.Request, token string) bool {
	if token == "" {
		return true
	}
	got := ""
	if _, pass, ok := r.BasicAuth(); ok {
		got = pass
	} else if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		got = strings.TrimSpace(v)
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// reserve takes n bytes of the held budget for index (a document replacing
// index's releases that one's); false when they do not fit.
func (rc *receiver) reserve(index int, n int64) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.held-rc.sizes[index]+rc.pending+n > rc.maxHeld {
		return false
	}
	rc.pending += n
	return true
}

// settle turns a reservation of n bytes into index's document of size
// bytes (kept), or releases it; rc.mu is held.
func (rc *receiver) settle(index int, n, size int64, kept bool) {
	rc.pending -= n
	if kept {
		rc.held += size - rc.sizes[index]
		rc.sizes[index] = size
	}
}

// readDocument reads a body of at most limit bytes into a buffer of its
// announced size (no doubling) and decodes it.
func readDocument(name string, r io.Reader, announced, limit int64) (Input, int64, error) {
	var buf bytes.Buffer
	if announced > 0 {
		buf.Grow(int(announced))
	}
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return Input{}, n, fmt.Errorf("reading the document: %w", err)
	}
	if n > limit {
		return Input{}, n, fmt.Errorf("the document is larger than %d bytes", limit)
	}
	var d metrics.Document
	err = json.Unmarshal(buf.Bytes(), &d)
	buf = bytes.Buffer{}
	if n > 16<<20 {
		debug.FreeOSMemory() // a large body's bytes go back at once, not minutes later
	}
	if err != nil {
		return Input{}, n, fmt.Errorf("%s: not a results document: %w", name, err)
	}
	x := Input{Name: name, Doc: &d}
	if err := checkConsistent(x); err != nil {
		return Input{}, n, err
	}
	return x, n, nil
}

// checkConsistent refuses a document whose counts do not add up: the run's
// duration known, every counter finite, not negative and its rate its count
// over that duration (as the engine writes it), and the requests counted
// as many as the request durations in its histogram.
func checkConsistent(x Input) error {
	d := x.Doc
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: inconsistent document: %s", x.Name, fmt.Sprintf(format, a...))
	}
	secs := d.State.TestRunDurationMs / 1000
	if !(secs > 0) || math.IsInf(secs, 0) {
		return bad("state.testRunDurationMs %v: want the run's duration, above 0", d.State.TestRunDurationMs)
	}
	for name, m := range d.Metrics {
		if m.Type != metrics.TypeCounter {
			continue
		}
		count, rate := m.Values["count"], m.Values["rate"]
		if !(count >= 0) || math.IsInf(count, 0) || !(rate >= 0) || math.IsInf(rate, 0) {
			return bad("%s: count %v, rate %v: want finite values, 0 or more", name, count, rate)
		}
		if math.Abs(rate*secs-count) > max(1, 1e-6*count) {
			return bad("%s: count %v is not its rate %v/s over the run's %v s", name, count, rate, secs)
		}
	}
	reqs, ok := d.Metrics["http_reqs"]
	enc, hasHist := d.Histograms["http_req_duration"]
	if ok && hasHist {
		tr, err := timing.DecodeTrend(enc)
		if err != nil {
			return bad("histograms.http_req_duration: %v", err)
		}
		if float64(tr.Count()) != reqs.Values["count"] {
			return bad("http_reqs count %v, but its histogram of http_req_duration holds %d requests", reqs.Values["count"], tr.Count())
		}
	}
	return nil
}
