package fakeserver

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// start runs a server for one test and closes it at the end.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	srv, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// get fetches url and returns the response with its body read.
func get(t testing.TB, c *http.Client, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// fetched is a GET made off the test's goroutine, which may not call
// t.Fatal: its answer, or the error that ended it.
type fetched struct {
	resp *http.Response
	body []byte
	err  error
}

// getAsync GETs url on a goroutine of its own; await takes the answer.
func getAsync(url string) <-chan fetched {
	ch := make(chan fetched, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			ch <- fetched{err: err}
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ch <- fetched{resp, body, err}
	}()
	return ch
}

// await returns getAsync's answer, failing the test on an error or when
// none came within limit.
func await(t testing.TB, ch <-chan fetched, limit time.Duration) (*http.Response, []byte) {
	t.Helper()
	select {
	case f := <-ch:
		if f.err != nil {
			t.Fatalf("GET: %v", f.err)
		}
		return f.resp, f.body
	case <-time.After(limit):
		t.Fatalf("no answer within %v", limit)
		return nil, nil
	}
}

// serverTimingEntry follows the W3C grammar: a token name, then
// ;param=value pairs where value is a token or a quoted string.
var serverTimingEntry = regexp.MustCompile(`^[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+(\s*;\s*[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+\s*=\s*([!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+|"[^"]*"))*$`)

// parseServerTiming parses Server-Timing strictly and returns each metric's dur in ms.
func parseServerTiming(t testing.TB, h http.Header) map[string]float64 {
	t.Helper()
	vals := h.Values("Server-Timing")
	if len(vals) == 0 {
		t.Fatal("no Server-Timing header")
	}
	out := map[string]float64{}
	for _, v := range vals {
		for _, e := range strings.Split(v, ",") {
			e = strings.TrimSpace(e)
			if !serverTimingEntry.MatchString(e) {
				t.Fatalf("Server-Timing entry %q does not follow the W3C syntax", e)
			}
			name, params, _ := strings.Cut(e, ";")
			for _, p := range strings.Split(params, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if k == "dur" {
					d, err := strconv.ParseFloat(v, 64)
					if err != nil {
						t.Fatalf("dur %q: %v", v, err)
					}
					out[name] = d
				}
			}
		}
	}
	return out
}

// assertWithin fails unless got is within [lo, hi], and logs what it measured.
func assertWithin(t testing.TB, name string, got, lo, hi float64) {
	t.Helper()
	t.Logf("%s = %.4g (band %.4g..%.4g)", name, got, lo, hi)
	if got < lo || got > hi || math.IsNaN(got) {
		t.Errorf("%s = %.4g, want within %.4g..%.4g", name, got, lo, hi)
	}
}

// waitRequests waits (up to 5 s) until the server has recorded n requests:
// a handler records after its last write, which a client may see first.
func waitRequests(t testing.TB, srv *Server, n int64) {
	t.Helper()
	waitFor(t, 5*time.Second, func() string {
		if got := srv.Stats().Requests; got < n {
			return fmt.Sprintf("%d requests recorded, want %d", got, n)
		}
		return ""
	})
}

// waitFor polls until pending says nothing is left to wait for (returns ""),
// failing the test with pending's last word once limit has passed. The
// server's counters have no event to wait on, hence the poll.
func waitFor(t testing.TB, limit time.Duration, pending func() string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		left := pending()
		if left == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", limit, left)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
