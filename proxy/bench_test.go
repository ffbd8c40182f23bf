package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
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

// BenchmarkBoxAllocs: heap allocations per request of the box itself:
// the process's mallocs over n keep-alive requests through the box, with
// a client and an origin that speak HTTP/1.1 from fixed buffers and
// allocate nothing per request (net/http at both ends would charge the box
// for what they allocate on its account: the origin parsing the
// X-Forwarded-* headers the box adds), less those of n requests straight
// to that origin in the same round (what remains of the ends' own). With
// one connection every answer comes at once; with 50 busy ones requests
// wait on the next hop, where the box watches its clients. The last case
// is bench-proxy.sh's box(http) between hey's request and middlebench
// server's answer (BenchmarkBoxCost's).
func BenchmarkBoxAllocs(b *testing.B) {
	raw := "http://" + rawOrigin(b)
	server := "http://" + rawOriginWith(b, serverAnswer)
	for _, tt := range []struct {
		name, cfg, up, req string
		noLoop             bool // the HTTP box on the lean loop alone (what it was before the HTTP loop)
	}{
		{"bytes-box", "boxes: [{name: plain}]", raw, "", false},
		{"http-box-inactive", inactiveHTTP, raw, "", false},
		{"http-box-inactive-lean", inactiveHTTP, raw, "", true},
		{"http-box-bench-proxy", benchProxyHTTP, server, heyRequest, false},
		{"http-box-bench-proxy-lean", benchProxyHTTP, server, heyRequest, true},
	} {
		up := tt.up
		for _, conns := range []int{1, 50} {
			b.Run(fmt.Sprintf("%s/conns=%d", tt.name, conns), func(b *testing.B) {
				box := startYAMLWith(b, tt.cfg, up, func(c *PathConfig) { c.Boxes[0].noLoop = tt.noLoop })
				const n = 4000
				mallocs := func(addr string) (uint64, uint64) {
					cs := make([]*rawClient, conns)
					for i := range cs {
						cs[i] = newRawClient(b, addr)
						if tt.req != "" {
							cs[i].req = []byte(fmt.Sprintf(tt.req, addr))
						}
						defer cs[i].Close()
						cs[i].get(b) // the connections, dialed outside the count
					}
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					var wg sync.WaitGroup
					errs := make([]error, conns)
					for i, c := range cs {
						wg.Go(func() {
							for range n / conns {
								if errs[i] = c.do(); errs[i] != nil {
									return
								}
							}
						})
					}
					wg.Wait()
					runtime.ReadMemStats(&after)
					if err := errors.Join(errs...); err != nil {
						b.Fatal(err)
					}
					return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
				}
				for b.Loop() {
					dm, db := mallocs(strings.TrimPrefix(up, "http://"))
					bm, bb := mallocs(box.Boxes()[0].Addr())
					b.ReportMetric((float64(bm)-float64(dm))/n, "box-allocs/req")
					b.ReportMetric((float64(bb)-float64(db))/n, "box-B/req")
				}
			})
		}
	}
}

// rawAnswer is rawOrigin's answer to every request.
const rawAnswer = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"

// rawOrigin answers every request head it reads with rawAnswer, from
// fixed buffers (no allocation per request); it returns its host:port.
func rawOrigin(tb testing.TB) string { return rawOriginWith(tb, rawAnswer) }

// rawOriginWith is rawOrigin answering with answer.
func rawOriginWith(tb testing.TB, answer string) string {
	return tcptest.Serve(tb, func(c net.Conn) { serveRaw(c, []byte(answer)) })
}

// serveRaw is rawOriginWith's connection.
func serveRaw(c net.Conn, answer []byte) {
	defer c.Close()
	buf := make([]byte, 8<<10)
	have := 0
	for {
		i := bytes.Index(buf[:have], []byte("\r\n\r\n"))
		if i < 0 {
			if have == len(buf) {
				return
			}
			n, err := c.Read(buf[have:])
			if err != nil {
				return
			}
			have += n
			continue
		}
		have = copy(buf, buf[i+4:have])
		if _, err := c.Write(answer); err != nil {
			return
		}
	}
}

// rawClient sends a fixed GET on one keep-alive connection and reads the
// answer (its head, then Content-Length bytes) into a fixed buffer.
type rawClient struct {
	net.Conn
	req, buf []byte
}

func newRawClient(tb testing.TB, addr string) *rawClient {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	return &rawClient{Conn: c, req: []byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: bench\r\n\r\n"), buf: make([]byte, 8<<10)}
}

func (c *rawClient) get(tb testing.TB) {
	if err := c.do(); err != nil {
		tb.Fatal(err)
	}
}

// do is get for another goroutine than the test's: the error is returned.
func (c *rawClient) do() error {
	if _, err := c.Write(c.req); err != nil {
		return err
	}
	have, want := 0, -1
	for want < 0 || have < want {
		n, err := c.Read(c.buf[have:])
		if err != nil {
			return err
		}
		have += n
		if want >= 0 {
			continue
		}
		i := bytes.Index(c.buf[:have], []byte("\r\n\r\n"))
		if i < 0 {
			continue
		}
		head := c.buf[:i]
		if !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) {
			return fmt.Errorf("answer %q", head)
		}
		j := bytes.Index(head, []byte("Content-Length: "))
		if j < 0 {
			return fmt.Errorf("answer without Content-Length: %q", head)
		}
		cl := 0
		for _, d := range head[j+len("Content-Length: "):] {
			if d < '0' || d > '9' {
				break
			}
			cl = 10*cl + int(d-'0')
		}
		want = i + 4 + cl
	}
	if have != want {
		return fmt.Errorf("%d bytes after the answer", have-want)
	}
	return nil
}
