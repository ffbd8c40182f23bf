package wire

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDialsFromTheGeneratorAddress: 256 dials from 16 goroutines at once
// each leave from the generator's address on the wire (the connection's own
// view and the server's), no thread is left in the namespace, and none of
// the threads there before has ended (the runtime ends a thread only with
// a goroutine that exits locked to it: a dial that left its caller locked).
func TestDialsFromTheGeneratorAddress(t *testing.T) {
	w := startWire(t, Config{}, Options{})
	addr := serve(t, w, func(c net.Conn) { _, _ = io.WriteString(c, c.RemoteAddr().String()+"\n") })
	gen := w.Gen().IP().String()
	before := threadIDs(t)
	const goroutines, each = 16, 16
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				c := dial(t, w, addr)
				if h, _, _ := net.SplitHostPort(c.LocalAddr().String()); h != gen {
					t.Errorf("local address %v, want the generator's %s", c.LocalAddr(), gen)
				}
				b, err := io.ReadAll(c)
				c.Close()
				if err != nil {
					t.Error(err)
					continue
				}
				if h, _, _ := net.SplitHostPort(string(b[:len(b)-min(len(b), 1)])); h != gen {
					t.Errorf("the server saw %q, want the generator's %s", b, gen)
				}
			}
		})
	}
	wg.Wait()
	after := threadIDs(t)
	for id := range before {
		if !after[id] {
			t.Errorf("thread %s ended during the dials, want every thread kept (a goroutine left locked takes its thread)", id)
		}
	}
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		ns, err := os.Readlink("/proc/self/task/" + task.Name() + "/ns/net")
		if err == nil && ns != own {
			t.Errorf("thread %s is left in %s, want every thread back in %s", task.Name(), ns, own)
		}
	}
}

func threadIDs(t *testing.T) map[string]bool {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, task := range tasks {
		ids[task.Name()] = true
	}
	return ids
}

// BenchmarkNamespaceSocket is what a dial from the generator's namespace
// pays before its connect starts (http_req_blocked): a socket made there.
func BenchmarkNamespaceSocket(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	n := w.Gen()
	b.ReportAllocs()
	for b.Loop() {
		fd, err := n.socket()
		if err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
	}
}

// BenchmarkNamespaceDial dials through a 0 ms wire and reports, besides
// the whole dial, the time from the call to ConnectStart (what the dial
// adds to http_req_blocked) and from ConnectStart to ConnectDone.
func BenchmarkNamespaceDial(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	benchDial(b, w.Gen().DialContext, serve(b, w, echo))
}

// BenchmarkOpenedNamespaceDial is an isolated experiment's engine dialing
// from the generator namespace of a wire its serving child made, by name:
// opened once for the run (opened=once), or opened and closed around each
// dial (opened=per-dial): the open and close are in the dial before its
// ConnectStart, so they show in ns-before-connect/op (http_req_blocked).
func BenchmarkOpenedNamespaceDial(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	addr := serve(b, w, echo)
	b.Run("opened=once", func(b *testing.B) {
		ns, err := OpenNamespace(w.Gen().Name())
		if err != nil {
			b.Fatal(err)
		}
		defer ns.Close()
		benchDial(b, ns.DialContext, addr)
	})
	b.Run("opened=per-dial", func(b *testing.B) {
		benchDial(b, func(ctx context.Context, network, addr string) (net.Conn, error) {
			ns, err := OpenNamespace(w.Gen().Name())
			if err != nil {
				return nil, err
			}
			defer ns.Close()
			return ns.DialContext(ctx, network, addr)
		}, addr)
	})
}

// BenchmarkInNamespaceNetDialer is the baseline: net.Dialer on a thread
// that stays in the namespace, as a k6 run under `ip netns exec` dials.
func BenchmarkInNamespaceNetDialer(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	addr := serve(b, w, echo)
	_ = w.Gen().Do(func() error {
		var d net.Dialer
		benchDial(b, d.DialContext, addr)
		return nil
	})
}

// benchDial times dial's calls to addr, split at its ConnectStart and
// ConnectDone.
func benchDial(b *testing.B, dial func(ctx context.Context, network, addr string) (net.Conn, error), addr string) {
	var t0, start, done time.Time
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		ConnectStart: func(string, string) { start = time.Now() },
		ConnectDone:  func(string, string, error) { done = time.Now() },
	})
	var pre, conn time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 = time.Now()
		c, err := dial(ctx, "tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		pre += start.Sub(t0)
		conn += done.Sub(start)
		c.Close()
	}
	b.ReportMetric(float64(pre.Nanoseconds())/float64(b.N), "ns-before-connect/op")
	b.ReportMetric(float64(conn.Nanoseconds())/float64(b.N), "ns-connecting/op")
}

// BenchmarkNewConnectionOutside is the engine's case: an HTTPS request on
// a new connection through net/http, and the part of GetConn→GotConn
// (http_req_blocked, as k6 computes it) outside connecting and TLS, for a
// dial from the generator's namespace over a 0 ms wire and for
// net.Dialer over loopback (the same transport's own share).
func BenchmarkNewConnectionOutside(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	hello := http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(rw, "ok") })
	wired, err := w.Srv().Listen("tcp", net.JoinHostPort(w.Srv().IP().String(), "0"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(hello)
	srv.Listener.Close()
	srv.Listener = wired
	srv.StartTLS()
	defer srv.Close()
	lo := httptest.NewTLSServer(hello)
	defer lo.Close()
	for _, c := range []struct {
		name    string
		url     string
		dial    func(ctx context.Context, network, addr string) (net.Conn, error)
		clients int
	}{
		{"wire", srv.URL, w.Gen().DialContext, 1},
		{"loopback", lo.URL, (&net.Dialer{}).DialContext, 1},
		{"wire/clients=8", srv.URL, w.Gen().DialContext, 8},
		{"loopback/clients=8", lo.URL, (&net.Dialer{}).DialContext, 8},
	} {
		b.Run(c.name, func(b *testing.B) {
			tr := &http.Transport{DialContext: c.dial, DisableKeepAlives: true,
				TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // a test server's certificate
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			var mu sync.Mutex
			var outside, before time.Duration
			b.ReportAllocs()
			b.SetParallelism(c.clients) // GOMAXPROCS × clients goroutines; 1 × 1 below
			request := func() {
				var getConn, gotConn, cs, cd, ts, td time.Time
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
					GetConn:           func(string) { getConn = time.Now() },
					ConnectStart:      func(string, string) { cs = time.Now() },
					ConnectDone:       func(string, string, error) { cd = time.Now() },
					TLSHandshakeStart: func() { ts = time.Now() },
					TLSHandshakeDone:  func(tls.ConnectionState, error) { td = time.Now() },
					GotConn:           func(httptrace.GotConnInfo) { gotConn = time.Now() },
				})
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				outside += gotConn.Sub(getConn) - cd.Sub(cs) - td.Sub(ts)
				before += cs.Sub(getConn)
				mu.Unlock()
			}
			if c.clients == 1 {
				for b.Loop() {
					request()
				}
			} else {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						request()
					}
				})
			}
			b.ReportMetric(float64(outside.Nanoseconds())/float64(b.N), "ns-outside/op")
			b.ReportMetric(float64(before.Nanoseconds())/float64(b.N), "ns-before-connect/op")
		})
	}
}
