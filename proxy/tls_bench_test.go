package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/selfsigned"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/wire"
)

// BenchmarkTLSHandshakeWire is what a TLS 1.3 handshake costs above its
// round trip through a wire of 1 ms RTT: through a box's tls stage and
// through a plain Go TLS listener in the same server namespace, taken in
// turn in the same run (so both see the same machine), with the same
// certificate kind and key exchanges. It reports the medians above the
// RTT (box-extra-µs, plain-extra-µs): the box's own cost is the
// difference; the rest is both ends' CPU and wake-ups. Needs root and
// /dev/net/tun.
func BenchmarkTLSHandshakeWire(b *testing.B) {
	const oneWay = 500 * time.Microsecond
	for _, curves := range [][]string{nil, {"X25519"}} {
		name := "default"
		if curves != nil {
			name = curves[0]
		}
		b.Run(name, func(b *testing.B) { benchHandshakeWire(b, oneWay, curves) })
	}
}

func benchHandshakeWire(b *testing.B, oneWay time.Duration, curves []string) {
	up := origin(b)
	off := false
	cfg := PathConfig{Wire: &wire.Config{Link: wire.Link{Latency: units.Duration(oneWay)}},
		Boxes: []BoxConfig{{Stages: []StageConfig{{Kind: "tls", Spec: &TLSConfig{MinVersion: "1.3", Resumption: &off, Curves: curves}}}}}}
	p, err := Start(context.Background(), cfg, up.URL)
	if errors.Is(err, wire.ErrUnavailable) {
		b.Skipf("skipping the real wire: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	plain, err := plainTLSListener(p, curves)
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	box := p.Boxes()[0].Addr()
	var boxExtra, plainExtra []time.Duration
	for b.Loop() {
		for _, t := range []struct {
			addr  string
			extra *[]time.Duration
		}{{box, &boxExtra}, {plain.Addr().String(), &plainExtra}} {
			d, err := handshakeOver(p.Wire(), t.addr)
			if err != nil {
				b.Fatal(err)
			}
			*t.extra = append(*t.extra, d-2*oneWay)
		}
	}
	b.ReportMetric(float64(pct(boxExtra, 50).Microseconds()), "box-extra-µs")
	b.ReportMetric(float64(pct(plainExtra, 50).Microseconds()), "plain-extra-µs")
}

// plainTLSListener serves plain Go TLS 1.3 (no tickets, the same curves)
// in the wire's server namespace, closing each connection after its
// handshake.
func plainTLSListener(p *Path, curves []string) (net.Listener, error) {
	cert, err := selfsigned.New()
	if err != nil {
		return nil, err
	}
	ids, err := parseCurves(curves, tls.VersionTLS13)
	if err != nil {
		return nil, err
	}
	ln, err := p.Wire().Srv().Listen("tcp", net.JoinHostPort(p.Wire().Srv().IP().String(), "0"))
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, SessionTicketsDisabled: true,
		CurvePreferences: ids, NextProtos: []string{"http/1.1"}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s := tls.Server(c, cfg)
				if s.Handshake() == nil {
					_, _ = io.Copy(io.Discard, s)
				}
			}()
		}
	}()
	return ln, nil
}

// handshakeOver dials addr from the wire's generator namespace and times
// a TLS handshake as k6 does (TLSHandshakeStart to Done, here the
// client's Handshake call).
func handshakeOver(w *wire.Wire, addr string) (time.Duration, error) {
	raw, err := w.Gen().DialContext(context.Background(), "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer raw.Close()
	c := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}) //nolint:gosec // timing only
	start := time.Now()
	if err := c.Handshake(); err != nil {
		return 0, err
	}
	d := time.Since(start)
	_ = c.Close()
	return d, nil
}
