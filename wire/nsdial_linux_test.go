package wire

import (
	"context"
	"io"
	"net"
	"net/http/httptrace"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDialsFromTheGeneratorAddress: 256 dials from 16 goroutines at once
// each leave from the generator's address on the wire (the connection's own
// view and the server's), no thread is left in the namespace, and the dials
// do not cost a thread each (a goroutine that ends locked takes its thread).
func TestDialsFromTheGeneratorAddress(t *testing.T) {
	w := startWire(t, Config{}, Options{})
	addr := serve(t, w, func(c net.Conn) { _, _ = io.WriteString(c, c.RemoteAddr().String()+"\n") })
	gen := w.Gen().IP().String()
	threads0 := threadCount(t)
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
	if made := threadCount(t) - threads0; made > goroutines {
		t.Errorf("%d dials made %d threads, want at most one per dialing goroutine (%d)", goroutines*each, made, goroutines)
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

func threadCount(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	return len(tasks)
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
	addr := serve(b, w, echo)
	var t0, start, done time.Time
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		ConnectStart: func(string, string) { start = time.Now() },
		ConnectDone:  func(string, string, error) { done = time.Now() },
	})
	var pre, conn time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 = time.Now()
		c, err := w.Gen().DialContext(ctx, "tcp", addr)
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

// BenchmarkInNamespaceNetDialer is the baseline: net.Dialer on a thread
// that stays in the namespace, as a k6 run under `ip netns exec` dials.
func BenchmarkInNamespaceNetDialer(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	addr := serve(b, w, echo)
	_ = w.Gen().Do(func() error {
		var t0, start, done time.Time
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			ConnectStart: func(string, string) { start = time.Now() },
			ConnectDone:  func(string, string, error) { done = time.Now() },
		})
		var pre, conn time.Duration
		var d net.Dialer
		b.ReportAllocs()
		for b.Loop() {
			t0 = time.Now()
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			pre += start.Sub(t0)
			conn += done.Sub(start)
			c.Close()
		}
		b.ReportMetric(float64(pre.Nanoseconds())/float64(b.N), "ns-before-connect/op")
		b.ReportMetric(float64(conn.Nanoseconds())/float64(b.N), "ns-connecting/op")
		return nil
	})
}
