package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// startWire starts a wire for a test, or skips the test naming what the
// machine lacks; the namespaces are removed when the test ends.
func startWire(t testing.TB, cfg Config, opts Options) *Wire {
	t.Helper()
	w, err := Start(context.Background(), cfg, opts)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

// echoServer listens in the server namespace and echoes every connection.
func echoServer(t testing.TB, w *Wire) string {
	t.Helper()
	ln, err := w.Srv().Listen("tcp", net.JoinHostPort(w.Srv().IP().String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func TestSmoke(t *testing.T) {
	w := startWire(t, Config{Link: Link{Latency: ms(20)}}, Options{})
	addr := echoServer(t, w)
	for range 5 {
		t0 := time.Now()
		c, err := w.Gen().DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("connect %v", time.Since(t0))
		c.Close()
	}
	t.Log(w.Summary())
}

func TestSmokeLate(t *testing.T) {
	for _, lat := range []float64{0, 20} {
		w := startWire(t, Config{Link: Link{Latency: ms(lat)}}, Options{})
		addr := echoServer(t, w)
		for range 5 {
			t0 := time.Now()
			c, err := w.Gen().DialContext(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("lat %v connect %v", lat, time.Since(t0))
			c.Close()
		}
		s := w.Stats()
		t.Logf("late up %v down %v", s.Up.Late, s.Down.Late)
	}
}
