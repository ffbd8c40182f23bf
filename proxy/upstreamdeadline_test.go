package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// TestResponseHeaderTimeoutPerExchange: on one pooled connection to the
// next hop, each exchange gets its own responseHeaderTimeout from when
// its request was sent, and a body none: the deadline an earlier exchange
// left on the socket (upstream.Conn leaves it there while it is earlier)
// cuts nothing when it passes, and a slow head still gets its 504 on time.
// The margins (150 ms and more) leave room for a loaded machine.
func TestResponseHeaderTimeoutPerExchange(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		const timeout = 400 * time.Millisecond
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, _ := time.ParseDuration(r.URL.Query().Get("work"))
			time.Sleep(d)
			body := "ok"
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Header().Set("Content-Type", "text/plain")
			if d, _ := time.ParseDuration(r.URL.Query().Get("slowbody")); d > 0 {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				time.Sleep(d)
			}
			io.WriteString(w, body)
		}))
		t.Cleanup(up.Close)
		p := start(t, "boxes: [{responseHeaderTimeout: 400ms, stages: [{kind: waf}]}]", up.URL)
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1}}
		t0 := time.Now()
		for i, tt := range []struct {
			at     time.Duration // sent this long after the first
			query  string
			status int
		}{
			{0, "work=0s", 200},
			{250 * time.Millisecond, "work=250ms", 200}, // the first exchange's deadline (400 ms) passes while this one waits
			{0, "slowbody=500ms", 200},                  // … and the second's while this body comes
			{0, "work=0s&slowbody=10ms", 200},
			{0, "work=" + (2 * timeout).String(), 504},
		} {
			if d := time.Until(t0.Add(tt.at)); d > 0 {
				time.Sleep(d)
			}
			start := time.Now()
			resp, err := client.Get(p.URL() + "/?" + tt.query)
			if err != nil {
				t.Fatalf("request %d (%s): %v", i+1, tt.query, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			t.Logf("request %d (%s): %d %q after %v", i+1, tt.query, resp.StatusCode, b, took)
			if err != nil || resp.StatusCode != tt.status {
				t.Fatalf("request %d (%s): %d, %v; want %d", i+1, tt.query, resp.StatusCode, err, tt.status)
			}
			// A deadline armed from the wrong exchange would be a whole
			// timeout off: late by half of one is already wrong.
			if tt.status == http.StatusGatewayTimeout && (took < timeout || took > timeout+timeout/2) {
				t.Errorf("504 after %v, want after the %v timeout (within %v)", took, timeout, timeout/2)
			}
		}
		if s := p.Boxes()[0].Stats(); s.UpstreamTimeouts != 1 || s.UpstreamCuts != 0 {
			t.Errorf("stats %+v: want one timeout, no cut", s)
		}
	})
}
