package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/wire"
)

// TestWireCountersOnMetrics: a path with a wire serves the wire's counters
// on /metrics, its release lateness among them, and they agree with Stats.
func TestWireCountersOnMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer srv.Close()
	cfg := PathConfig{Wire: &wire.Config{Link: wire.Link{Latency: units.Duration(1e6)}}, Admin: "127.0.0.1:0",
		Boxes: []BoxConfig{{Name: "edge", Listen: "127.0.0.1:0"}}}
	p, err := Start(context.Background(), cfg, srv.URL)
	if errors.Is(err, wire.ErrUnavailable) {
		t.Skipf("skipping the real wire: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: p.Wire().Gen().DialContext}}
	const n = 3
	for range n {
		resp, err := client.Get(p.URL())
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	client.CloseIdleConnections()
	// Packets may still cross (the closes) while /metrics is read: its
	// counts lie between the counters read before and after.
	before := p.Wire().Stats()
	resp, err := http.Get(p.AdminURLs()[0] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	s := p.Wire().Stats()
	value := func(series string) float64 {
		for _, l := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(l, series+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err == nil {
					return f
				}
			}
		}
		t.Errorf("/metrics lacks %s", series)
		return -1
	}
	for _, c := range []struct {
		series string
		lo, hi int64
	}{
		{`middlebench_wire_late_seconds_count{dir="up"}`, before.Up.Passed, s.Up.Passed},
		{`middlebench_wire_late_seconds_count{dir="down"}`, before.Down.Passed, s.Down.Passed},
		{`middlebench_wire_passed_total{dir="up"}`, before.Up.Passed, s.Up.Passed},
	} {
		if v := value(c.series); v < float64(c.lo) || v > float64(c.hi) {
			t.Errorf("%s = %v, want %d..%d (the wire's counters)", c.series, v, c.lo, c.hi)
		}
	}
	if late := value(`middlebench_wire_late_seconds{dir="up",quantile="0.99"}`); late < 0 || late > 0.1 {
		t.Errorf("up released late p99 %v s", late)
	}
	if s.Up.Passed == 0 {
		t.Error("no packet crossed the wire")
	}
}
