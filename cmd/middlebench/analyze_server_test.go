package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/units"
)

// The fake server's /_mb/stats, saved to a file, is what --server-stats
// reads: its request count and times become the server's view.
func TestAnalyzeWithTheFakeServersStats(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := fakeserver.Start(ctx, fakeserver.Config{Work: units.Fixed(5 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(url string) []byte {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for range 20 {
		get(srv.URL() + "/")
	}
	stats := get(srv.URL() + "/_mb/stats")
	p := filepath.Join(t.TempDir(), "stats.json")
	if err := os.WriteFile(p, stats, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := diagnose.ReadServerStats(p)
	if err != nil {
		t.Fatal(err)
	}
	// No worker limit: the queue is read from the file, and it is empty
	// (well under the 5 ms of work).
	if s.Requests != 20 || s.Time.Avg < 5 || s.Time.Avg > 15 || !s.Queue.Present() || s.Queue.Avg < 0 || s.Queue.Avg >= 1 {
		t.Fatalf("server view from /_mb/stats: %+v\n%s", s, stats)
	}
	// The k6 sample's 291 requests against a server that saw 20. Where the
	// requests recorded no server time of their own (here: the sample's
	// server_time trend not named), the view's time splits waiting; where
	// they did, theirs does, as it belongs to the same requests.
	tests := []struct {
		name    string
		args    []string
		srvTime float64
		code    string
	}{
		{"view only", []string{"--server-metric", "not_recorded"}, s.Time.Avg, "path-latency"}, // 51 ms waiting against 5 ms
		{"per-request trend first", nil, 50.6, "healthy"},
	}
	for _, tt := range tests {
		args := append([]string{"analyze", "../../bench/diagnose/testdata/k6/summary-export.json", "--server-stats", p, "--json"}, tt.args...)
		out, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.name, code, out)
		}
		var r diagnose.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Phases.Server.Avg; got < tt.srvTime-0.05 || got > tt.srvTime+0.05 {
			t.Errorf("%s: server time in the report %v, want %v", tt.name, got, tt.srvTime)
		}
		if !strings.Contains(fmt.Sprint(r.Codes()), tt.code) {
			t.Errorf("%s: codes %v, want %s", tt.name, r.Codes(), tt.code)
		}
	}
}
