package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// origin is a small upstream for tests: it sleeps ?work=, answers ?size=
// bytes and ?status=, reads the body, and says how long it took in
// Server-Timing, as the fake server does.
func origin(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		n, _ := io.Copy(io.Discard, r.Body)
		q := r.URL.Query()
		if d, err := time.ParseDuration(q.Get("work")); err == nil {
			time.Sleep(d)
		}
		status := http.StatusOK
		if s, err := strconv.Atoi(q.Get("status")); err == nil {
			status = s
		}
		size, _ := strconv.Atoi(q.Get("size"))
		w.Header().Set("Server-Timing", fmt.Sprintf("app;dur=%.1f", float64(time.Since(start))/1e6))
		w.Header().Set("X-Body-Bytes", strconv.FormatInt(n, 10))
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.WriteHeader(status)
		if size > 0 {
			w.Write(make([]byte, size))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startYAML starts a path from YAML in front of upstream.
func startYAML(t testing.TB, src, upstream string) *Path { return startYAMLWith(t, src, upstream, nil) }

// startYAMLWith is startYAML with the decoded config changed by edit first.
func startYAMLWith(t testing.TB, src, upstream string, edit func(*PathConfig)) *Path {
	t.Helper()
	var cfg PathConfig
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatalf("config: %v", err)
	}
	if edit != nil {
		edit(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	p, err := Start(ctx, cfg, upstream)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// pathStarter starts a path from YAML in front of upstream (startYAML's
// shape).
type pathStarter func(t testing.TB, src, upstream string) *Path

// onBothLoops runs f as two subtests: with paths whose first box serves
// its connections on the HTTP loop where it can (Linux), and on the lean
// loop alone. A behaviour both must have is checked on each.
func onBothLoops(t *testing.T, f func(t *testing.T, start pathStarter)) {
	for _, w := range []struct {
		name   string
		noLoop bool
	}{{"http loop", false}, {"lean loop", true}} {
		t.Run(w.name, func(t *testing.T) {
			f(t, func(t testing.TB, src, upstream string) *Path {
				return startYAMLWith(t, src, upstream, func(c *PathConfig) { c.Boxes[0].noLoop = w.noLoop })
			})
		})
	}
}

func get(t testing.TB, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: body: %v", url, err)
	}
	return resp, string(b)
}

func contains(t testing.TB, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%q does not contain %q", s, w)
		}
	}
}

// sendRaw dials addr, writes in from another goroutine (the box may
// answer before it has read all of in) and returns the connection, with
// a 10 s deadline and closed when the test ends.
func sendRaw(t testing.TB, addr, in string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(c, in)
	return c
}

// closeWithin closes p from another goroutine and fails t unless it has
// closed within 5 s (with what's connections open, for the message).
func closeWithin(t testing.TB, p *Path, what string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the box did not close in 5 s with %s", what)
	}
}

// waitSteady waits until read gives the same value for still (read every
// 10 ms) and returns it; the test fails when it has not settled within
// limit. A stall has no event to wait on: its condition is a value that
// stops moving.
func waitSteady(t testing.TB, what string, read func() int64, still, limit time.Duration) int64 {
	t.Helper()
	t0 := time.Now()
	v, since := read(), time.Now()
	for time.Since(since) < still {
		if time.Since(t0) > limit {
			t.Fatalf("%s still moving after %v (now %d)", what, limit, v)
		}
		time.Sleep(10 * time.Millisecond)
		if n := read(); n != v {
			v, since = n, time.Now()
		}
	}
	t.Logf("%s steady at %d after %v", what, v, time.Since(t0).Round(time.Millisecond))
	return v
}
