package proxy

import (
	"io"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inactiveHTTP has every stage configured but doing nothing: the cost of
// a parsing box itself.
const inactiveHTTP = `boxes:
  - name: inactive
    stages:
      - {kind: accept}
      - {kind: link}
      - {kind: bandwidth}
      - {kind: waf}
      - {kind: ratelimit, rate: 1000000000/s}
      - {kind: uablock, patterns: [^never-matches$]}
      - {kind: fault}
`

func benchClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}}
}

func fetch(b *testing.B, c *http.Client, url string) time.Duration {
	start := time.Now()
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start)
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p/100*float64(len(s)-1))]
}

// BenchmarkHopOverhead: added latency per hop, p50/p99, for a bytes box and
// for a parsing box with every stage configured but inactive, against the
// same origin directly; requests interleaved so that noise hits all alike.
func BenchmarkHopOverhead(b *testing.B) {
	up := origin(b)
	bytesBox := startYAML(b, "boxes: [{name: plain}]", up.URL)
	httpBox := startYAML(b, inactiveHTTP, up.URL)
	c := benchClient(1)
	const n = 2000
	for b.Loop() {
		var direct, viaBytes, viaHTTP []time.Duration
		for range n {
			direct = append(direct, fetch(b, c, up.URL))
			viaBytes = append(viaBytes, fetch(b, c, bytesBox.URL()))
			viaHTTP = append(viaHTTP, fetch(b, c, httpBox.URL()))
		}
		us := func(d time.Duration) float64 { return float64(d) / 1e3 }
		b.ReportMetric(us(pct(direct, 50)), "direct-p50-µs")
		b.ReportMetric(us(pct(viaBytes, 50)-pct(direct, 50)), "bytes-added-p50-µs")
		b.ReportMetric(us(pct(viaBytes, 99)-pct(direct, 99)), "bytes-added-p99-µs")
		b.ReportMetric(us(pct(viaHTTP, 50)-pct(direct, 50)), "http-added-p50-µs")
		b.ReportMetric(us(pct(viaHTTP, 99)-pct(direct, 99)), "http-added-p99-µs")
	}
}

// BenchmarkThroughput: requests per second with 50 connections.
func BenchmarkThroughput(b *testing.B) {
	up := origin(b)
	for _, tt := range []struct{ name, cfg string }{{"direct", ""}, {"bytes-box", "boxes: [{name: plain}]"}, {"http-box-inactive", inactiveHTTP}} {
		b.Run(tt.name, func(b *testing.B) {
			url := up.URL
			if tt.cfg != "" {
				url = startYAML(b, tt.cfg, up.URL).URL()
			}
			c := benchClient(50)
			b.SetParallelism(25) // 2 cores × 25 = 50 goroutines
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					fetch(b, c, url)
				}
			})
		})
	}
}

// BenchmarkDelayAccuracy: 16 clients through a waf for 5 s; the error of
// each applied delay against the one asked, p50/p99.
func BenchmarkDelayAccuracy(b *testing.B) {
	up := origin(b)
	for _, delay := range []string{"50ms", "450ms"} {
		b.Run(delay, func(b *testing.B) {
			for b.Loop() {
				p := startYAML(b, "boxes: [{stages: [{kind: waf, delay: "+delay+"}]}]", up.URL)
				c := benchClient(16)
				var wg sync.WaitGroup
				end := time.Now().Add(5 * time.Second)
				for range 16 {
					wg.Go(func() {
						for time.Now().Before(end) {
							fetch(b, c, p.URL())
						}
					})
				}
				wg.Wait()
				var errs []time.Duration
				for _, e := range p.Ledger() {
					errs = append(errs, time.Duration((e.AppliedMs-e.AskedMs)*1e6))
				}
				p.Close()
				b.ReportMetric(float64(len(errs)), "delays")
				b.ReportMetric(float64(pct(errs, 50))/1e3, "err-p50-µs")
				b.ReportMetric(float64(pct(errs, 99))/1e3, "err-p99-µs")
			}
		})
	}
}

// BenchmarkBandwidthCap: a 10 MiB/s cap shared by 4 connections
// downloading 1 MiB responses for 5 s; the error of the measured rate.
func BenchmarkBandwidthCap(b *testing.B) {
	up := origin(b)
	for _, mode := range []string{"shared", "perConnection"} {
		b.Run(mode, func(b *testing.B) {
			cfg := "boxes: [{stages: [{kind: bandwidth, down: 10MiB/s}]}]"
			want := 10.0 * (1 << 20)
			if mode == "perConnection" {
				cfg = "boxes: [{stages: [{kind: bandwidth, down: 2MiB/s, perConnection: true}]}]"
				want = 4 * 2.0 * (1 << 20)
			}
			for b.Loop() {
				p := startYAML(b, cfg, up.URL)
				c := benchClient(4)
				var total atomic.Int64
				var wg sync.WaitGroup
				start := time.Now()
				end := start.Add(5 * time.Second)
				for range 4 {
					wg.Go(func() {
						buf := make([]byte, 32<<10)
						for time.Now().Before(end) {
							resp, err := c.Get(p.URL() + "/?size=1048576")
							if err != nil {
								b.Error(err)
								return
							}
							for time.Now().Before(end) {
								n, err := resp.Body.Read(buf)
								total.Add(int64(n))
								if err != nil {
									break
								}
							}
							resp.Body.Close()
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				p.Close()
				got := float64(total.Load()) / elapsed.Seconds()
				b.ReportMetric(got/(1<<20), "MiB/s")
				b.ReportMetric((got-want)/want*100, "err-%")
			}
		})
	}
}

// BenchmarkBoxAllocs: heap allocations per request of the box itself. The
// process's mallocs over n keep-alive requests through the box, less those
// of n requests straight to the origin by the same client in the same
// round (client and origin allocate alike in both).
func BenchmarkBoxAllocs(b *testing.B) {
	up := origin(b)
	for _, tt := range []struct{ name, cfg string }{{"bytes-box", "boxes: [{name: plain}]"}, {"http-box-inactive", inactiveHTTP}} {
		b.Run(tt.name, func(b *testing.B) {
			box := startYAML(b, tt.cfg, up.URL)
			c := benchClient(1)
			const n = 2000
			mallocs := func(url string) (uint64, uint64) {
				fetch(b, c, url) // the connection, dialed outside the count
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for range n {
					fetch(b, c, url)
				}
				runtime.ReadMemStats(&after)
				return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
			}
			for b.Loop() {
				dm, db := mallocs(up.URL)
				bm, bb := mallocs(box.URL())
				b.ReportMetric((float64(bm)-float64(dm))/n, "box-allocs/req")
				b.ReportMetric((float64(bb)-float64(db))/n, "box-B/req")
			}
		})
	}
}
