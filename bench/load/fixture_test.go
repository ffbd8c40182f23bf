package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// sleepyHandler answers after d and reports its own time the way the fake
// server does (Server-Timing: queue;dur=…, app;dur=…).
func sleepyHandler(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if d > 0 {
			time.Sleep(d)
		}
		w.Header().Set("Server-Timing", fmt.Sprintf("queue;dur=0.001, app;dur=%.3f", float64(time.Since(start))/1e6))
		w.Write([]byte("hello from the test origin\n"))
	}
}

// runFor runs cfg against the test server with a deadline that bounds any
// hang, and fails the test on error.
func runFor(t *testing.T, cfg *Config, limit time.Duration) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := Run(ctx, cfg, Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Aborted {
		t.Fatalf("run hit the test's %s limit", limit)
	}
	return res
}

func dur(d time.Duration) units.Duration { return units.Duration(d) }

func durp(d time.Duration) *units.Duration { x := units.Duration(d); return &x }

func newServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// assertWithin fails unless got is within tol of want, and logs it.
func assertWithin(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	t.Logf("%s = %.4g (want %.4g ± %.3g)", what, got, want, tol)
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %.4g, want %.4g ± %.3g", what, got, want, tol)
	}
}
