// Package hostiletest plays the clients a server must survive — slowloris
// connections, clients that never read — and measures what a well-behaved
// client sees meanwhile, for the fake server's and the boxes' tests.
package hostiletest

import (
	"io"
	"net/http"
	"slices"
	"testing"
	"time"
)

// P99 sends GETs to url one after the other on one keep-alive connection
// of c for d, and returns their 99th-percentile time (nearest rank) and
// how many were sent.
func P99(tb testing.TB, c *http.Client, url string, d time.Duration) (time.Duration, int) {
	tb.Helper()
	var times []time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		t0 := time.Now()
		resp, err := c.Get(url)
		if err != nil {
			tb.Fatalf("well-behaved client: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			tb.Fatalf("well-behaved client: %s", resp.Status)
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	return times[(len(times)*99+99)/100-1], len(times)
}
