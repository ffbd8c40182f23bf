package wire

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/selfsigned"
)

// stampedConn stamps when each Write starts (the bytes are made; a write
// through a 0 ms wire can return after the far end has read them) and
// when each Read returns (the bytes have arrived).
type stampedConn struct {
	net.Conn
	mu            sync.Mutex
	wrote, readAt []time.Time
}

func (c *stampedConn) Write(p []byte) (int, error) {
	c.stamp(&c.wrote)
	return c.Conn.Write(p)
}

func (c *stampedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.stamp(&c.readAt)
	return n, err
}

func (c *stampedConn) stamp(to *[]time.Time) {
	now := time.Now()
	c.mu.Lock()
	*to = append(*to, now)
	c.mu.Unlock()
}

func (c *stampedConn) first(of *[]time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(*of) == 0 {
		return time.Time{}
	}
	return (*of)[0]
}

// handshakeSteps are one TLS 1.3 handshake's pieces, stamped on both ends
// (one process, one clock).
type handshakeSteps struct {
	connect    time.Duration // DialContext, from the generator's namespace
	helloCPU   time.Duration // connected → the ClientHello's write: the client's key shares
	helloOver  time.Duration // its write → the server has it parsed, above the one-way latency
	serverCPU  time.Duration // parsed → the server's flight's write: its key exchange, signature
	flightOver time.Duration // its write → the client's first read returns, above the latency
	clientCPU  time.Duration // → handshake done: the client's key exchange, its Finished
	tls        time.Duration // the client's Handshake, as http_req_tls_handshaking
}

// BenchmarkTLSHandshakeSteps splits a new connection's TCP and TLS 1.3
// handshake through the wire (the line in its own process, as middlebench
// runs it) into what the round trips cost and what the two ends do, at 0
// ms, 500 µs and 75 ms one way, and reports the medians with the line's
// own release error (late-p50/p90, from its counters). The client is
// configured as the engine's and k6's (Go's default curves: X25519MLKEM768
// beside X25519), the server as the box's tls stage in rtt-distance
// (X25519 only, no tickets). Each connection starts as the previous
// handshake ends, or after idle: both ends idle, as through rtt-distance's
// 120 ms of server work before a VU's next connection. Run with
// -benchtime=40x: each op is one connection.
func BenchmarkTLSHandshakeSteps(b *testing.B) {
	for _, c := range []struct{ oneWay, idle time.Duration }{
		{0, 0}, {500 * time.Microsecond, 0}, {500 * time.Microsecond, 120 * time.Millisecond}, {75 * time.Millisecond, 0},
	} {
		b.Run(fmt.Sprintf("one-way=%v/idle=%v", c.oneWay, c.idle), func(b *testing.B) {
			w := startWire(b, Config{Link: Link{Latency: ms(float64(c.oneWay) / 1e6)}}, Options{})
			steps := handshakeTimeline(b, w, b.N, c.idle)
			med := func(f func(handshakeSteps) time.Duration) float64 {
				ds := make([]time.Duration, len(steps))
				for i, s := range steps {
					ds[i] = f(s)
				}
				return float64(median(ds)) / 1e6
			}
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.connect }), "ms-connect")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.tls }), "ms-tls")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.helloCPU }), "ms-hello-cpu")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.helloOver }), "ms-hello-over-latency")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.serverCPU }), "ms-server-cpu")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.flightOver }), "ms-flight-over-latency")
			b.ReportMetric(med(func(s handshakeSteps) time.Duration { return s.clientCPU }), "ms-client-cpu")
			st := w.Stats()
			b.ReportMetric(max(st.Up.Late["med"], st.Down.Late["med"]), "ms-late-p50")
			b.ReportMetric(max(st.Up.Late["p(90)"], st.Down.Late["p(90)"]), "ms-late-p90")
			b.ReportMetric(0, "ns/op") // one op is a connection of at least a round trip: not a rate
		})
	}
}

// handshakeTimeline makes n new connections with a TLS 1.3 handshake each,
// one after another as a VU without reuse does, idle apart, and returns
// their steps.
func handshakeTimeline(b *testing.B, w *Wire, n int, idle time.Duration) []handshakeSteps {
	oneWay := w.Config().UpLink().Latency.D()
	cert, err := selfsigned.New(w.Srv().IP().String())
	if err != nil {
		b.Fatal(err)
	}
	type serverStamps struct{ hello, flight time.Time }
	stamps := make(chan serverStamps, 1)
	addr := serve(b, w, func(c net.Conn) {
		var hello time.Time
		sc := &stampedConn{Conn: c}
		tc := tls.Server(sc, &tls.Config{Certificates: []tls.Certificate{cert}, CurvePreferences: []tls.CurveID{tls.X25519},
			SessionTicketsDisabled: true, MinVersion: tls.VersionTLS13, NextProtos: []string{"http/1.1"},
			GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { hello = time.Now(); return nil, nil }})
		err := tc.Handshake()
		stamps <- serverStamps{hello: hello, flight: sc.first(&sc.wrote)}
		if err == nil {
			_, _ = io.Copy(io.Discard, tc)
		}
	})
	var steps []handshakeSteps
	b.ResetTimer()
	for range n {
		time.Sleep(idle) // the idle is what is measured: the ends go cold
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t0 := time.Now()
		c, err := w.Gen().DialContext(ctx, "tcp", addr)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		sc := &stampedConn{Conn: c}
		tc := tls.Client(sc, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12, //nolint:gosec // a test server's certificate
			NextProtos: []string{"h2", "http/1.1"}})
		herr := tc.Handshake()
		t2 := time.Now()
		if herr != nil {
			b.Fatal(herr)
		}
		s := <-stamps
		hello, flightIn := sc.first(&sc.wrote), sc.first(&sc.readAt)
		tc.Close()
		steps = append(steps, handshakeSteps{connect: t1.Sub(t0), helloCPU: hello.Sub(t1), helloOver: s.hello.Sub(hello) - oneWay,
			serverCPU: s.flight.Sub(s.hello), flightOver: flightIn.Sub(s.flight) - oneWay, clientCPU: t2.Sub(flightIn), tls: t2.Sub(t1)})
	}
	b.StopTimer()
	if len(steps) == 0 {
		b.Fatal("no handshakes")
	}
	return slices.Clip(steps)
}
