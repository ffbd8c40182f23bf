package load

import (
	"bytes"
	"context"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// cannedServer answers every request on a connection with the same bytes,
// allocating nothing per request, so a benchmark counts the engine's
// allocations and not a server's.
func cannedServer(tb testing.TB) string {
	tb.Helper()
	resp := []byte("HTTP/1.1 200 OK\r\nServer-Timing: app;dur=0.012\r\nContent-Length: 28\r\nContent-Type: text/plain\r\n\r\nhello from the bench origin\n")
	return "http://" + tcptest.Serve(tb, func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 8192)
		var pending int
		for {
			n, err := c.Read(buf[pending:])
			if err != nil {
				return
			}
			pending += n
			for {
				i := bytes.Index(buf[:pending], []byte("\r\n\r\n"))
				if i < 0 {
					break
				}
				if _, err := c.Write(resp); err != nil {
					return
				}
				copy(buf, buf[i+4:pending])
				pending -= i + 4
			}
			if pending == len(buf) {
				pending = 0
			}
		}
	}) + "/"
}

// BenchmarkIteration is one VU's iteration (one GET with every phase
// traced, Server-Timing parsed, recorded in the trends); allocs/op is the
// engine's allocations per request (net/http's included).
func BenchmarkIteration(b *testing.B) {
	url := cannedServer(b)
	b.ReportAllocs()
	res, err := Run(context.Background(), &Config{URL: url, Executor: PerVUIterations, VUs: 1, Iterations: int64(b.N)}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if res.Requests != int64(b.N) || res.Failed != 0 {
		b.Fatalf("%v: %v", res, res.ErrorExamples)
	}
}

// BenchmarkIterationNetHTTP is BenchmarkIteration through net/http (the
// engine's client for https, uploads and the rest: renderHead).
func BenchmarkIterationNetHTTP(b *testing.B) {
	url := cannedServer(b)
	b.ReportAllocs()
	res, err := Run(context.Background(), &Config{URL: url, Executor: PerVUIterations, VUs: 1, Iterations: int64(b.N)}, Options{netHTTPOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	if res.Requests != int64(b.N) || res.Failed != 0 {
		b.Fatalf("%v: %v", res, res.ErrorExamples)
	}
}

// TestLeanRequestsDoNotAllocate: a request through the lean client, every
// phase traced and recorded, allocates nothing once the run is set up —
// the allocations of two runs that differ by 5,000 requests differ by
// less than one per two requests (one allocation per request would make
// it one or more; what remains is the summary's histogram encoding, which
// grows with the spread of the values, and rare idle peeks).
func TestLeanRequestsDoNotAllocate(t *testing.T) {
	url := cannedServer(t)
	mallocs := func(n int64) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), &Config{URL: url, Executor: PerVUIterations, VUs: 1, Iterations: n}, Options{})
		runtime.ReadMemStats(&after)
		if err != nil || res.Requests != n || res.Failed != 0 {
			t.Fatalf("%v %v", err, res)
		}
		return after.Mallocs - before.Mallocs
	}
	small, large := mallocs(1000), mallocs(6000)
	perRequest := (float64(large) - float64(small)) / 5000
	t.Logf("%d allocations for 1,000 requests, %d for 6,000: %.3f per request", small, large, perRequest)
	if perRequest >= 0.5 {
		t.Errorf("%.3f allocations per request, want none", perRequest)
	}
}

// BenchmarkIterationParallel is 8 VUs sharing the CPU.
func BenchmarkIterationParallel(b *testing.B) {
	url := cannedServer(b)
	b.ReportAllocs()
	n := int64(b.N)/8 + 1
	res, err := Run(context.Background(), &Config{URL: url, Executor: PerVUIterations, VUs: 8, Iterations: n}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if res.Failed != 0 {
		b.Fatalf("%v", res.ErrorExamples)
	}
}

func BenchmarkCollector(b *testing.B) {
	scs, _ := prepare(&Config{URL: "http://a/"})
	subs, _ := submetricsFor(scs, nil)
	c := newCollector(newBatches(), nil, subs, nil)
	r := record{kind: kindRequest, status: 200, proto: 11, hasServer: true, server: 51e6,
		ph: phases{blocked: 3000, sending: 20000, waiting: 51e6, receiving: 60000, dur: 51080000, wall: 51080000, wrote: true}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.end = int64(i)
		c.add(&r)
	}
}

// BenchmarkJSONOutput is --out json's cost per request (nine points).
func BenchmarkJSONOutput(b *testing.B) {
	cfg := &Config{URL: "http://127.0.0.1:8080/?work=50ms"}
	scs, _ := prepare(cfg)
	o := newJSONOutput(io.Discard, nil, scs)
	o.setBase(time.Now())
	recs := []record{{kind: kindRequest, status: 200, proto: 11, hasServer: true, server: 51e6,
		ph: phases{blocked: 3000, sending: 20000, waiting: 51e6, receiving: 60000, dur: 51080000, wall: 51080000, wrote: true}}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		recs[0].end = int64(i) * 1000
		o.write(recs)
	}
}
