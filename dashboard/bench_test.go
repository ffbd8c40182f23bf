//go:build unix

package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// cannedOrigin answers every request with the same bytes and allocates
// nothing per request: the engine (and the dashboard) are what costs.
func cannedOrigin(tb testing.TB) string {
	tb.Helper()
	resp := []byte("HTTP/1.1 200 OK\r\nServer-Timing: app;dur=0.012\r\nContent-Length: 3\r\n\r\nok\n")
	return "http://" + tcptest.Serve(tb, func(c net.Conn) {
		defer c.Close()
		rd := bufio.NewReader(c)
		for {
			line, err := rd.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(bytes.TrimSpace(line)) == 0 { // end of a request's headers
				if _, err := c.Write(resp); err != nil {
					return
				}
			}
		}
	}) + "/"
}

// BenchmarkDashboardCost is the engine at 50 VUs against the trivial
// origin, without and with the dashboard (observer, per-second sampler
// and a page subscribed to the feed); ns/op is per request, so the ratio
// of the two is the dashboard's cost in requests/s:
//
//	go test -run XXX -bench DashboardCost -count 6 ./dashboard/
func BenchmarkDashboardCost(b *testing.B) {
	url := cannedOrigin(b)
	run := func(b *testing.B, withDash bool) {
		opts := load.Options{}
		if withDash {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var agg Aggregator
			d := New("bench", Sources{Load: &agg})
			page, err := d.Serve(ctx, "127.0.0.1:0", false)
			if err != nil {
				b.Fatal(err)
			}
			go d.Run(ctx)
			req, _ := http.NewRequestWithContext(ctx, "GET", page+"events", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			defer resp.Body.Close()
			go func() { _, _ = bufio.NewReader(resp.Body).WriteTo(discard{}) }()
			opts.Observer = &agg
		}
		b.ResetTimer()
		cpu0 := processCPU()
		res, err := load.Run(context.Background(), &load.Config{URL: url, Executor: load.SharedIterations, VUs: 50, Iterations: int64(max(b.N, 50))}, opts)
		b.StopTimer()
		cpu := processCPU() - cpu0
		if err != nil || res.Failed != 0 {
			b.Fatalf("%v %v", err, res.ErrorExamples)
		}
		// CPU per request is what the dashboard takes from the engine; on a
		// shared machine it is steadier than requests/s.
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(res.Requests), "cpu-ns/req")
		b.ReportMetric(float64(res.Requests)/res.Duration().Seconds(), "req/s")
	}
	b.Run("without", func(b *testing.B) { run(b, false) })
	b.Run("with", func(b *testing.B) { run(b, true) })
}

// processCPU is the process's user + system CPU time so far (the origin
// runs in the same process: both sides count, as on one machine).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkObserve is the dashboard's cost on the request path: one
// Observe, from many VUs at once (each its own shard).
func BenchmarkObserve(b *testing.B) {
	var a Aggregator
	o := load.Observation{Waiting: 1e6, Duration: 1e6, Server: 5e5, HasServer: true, Status: 200}
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		vu := int(next.Add(1))
		for pb.Next() {
			a.Observe(vu, o)
		}
	})
}

// BenchmarkSample is the sampler's cost per tick (once a second).
func BenchmarkSample(b *testing.B) {
	var a Aggregator
	for vu := range 50 {
		a.Observe(vu, load.Observation{Status: 200})
	}
	d := New("bench", Sources{Load: &a})
	b.ReportAllocs()
	for i := range b.N {
		d.Tick(d.start.Add(time.Duration(i+1) * time.Second))
		if len(d.state.Points) > 1000 {
			d.state.Points = d.state.Points[:0]
		}
	}
}
