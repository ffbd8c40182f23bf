package wire

import (
	"context"
	"errors"
	"net"
	"net/http/httptrace"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestDialFromTheNamespace: the dial of an IPv4 address runs its connect
// on the caller's goroutine and still reports to httptrace (the engine's
// connecting phase), lands in the namespace (the server namespace's
// address is reachable only there), and fails as net.Dialer does: refused,
// or at the context's deadline.
func TestDialFromTheNamespace(t *testing.T) {
	w := startWire(t, Config{Link: Link{Latency: ms(5)}}, Options{})
	addr := serve(t, w, echo)
	var start, done time.Time
	var doneErr error
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		ConnectStart: func(network, a string) { start = time.Now() },
		ConnectDone:  func(network, a string, err error) { done, doneErr = time.Now(), err },
	})
	c, err := w.Gen().DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	pingOnce(t, c)
	c.Close()
	if start.IsZero() || done.IsZero() || doneErr != nil {
		t.Fatalf("trace: start %v done %v err %v", start, done, doneErr)
	}
	if got := done.Sub(start); got < 10*time.Millisecond {
		t.Errorf("ConnectStart to ConnectDone %v: want at least the round trip, 10 ms", got)
	}

	// Refused: a port nobody listens on in the server namespace.
	ln, err := w.Srv().Listen("tcp", net.JoinHostPort(w.Srv().IP().String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, err = w.Gen().DialContext(context.Background(), "tcp", closed)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || !errors.Is(err, unix.ECONNREFUSED) {
		t.Errorf("dial to a closed port: %v (%T), want a dial *net.OpError with ECONNREFUSED", err, err)
	}

	// A deadline shorter than the round trip: the SYN-ACK comes too late.
	dctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = w.Gen().DialContext(dctx, "tcp", addr)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(t0) > 8*time.Millisecond {
		t.Errorf("dial with a 2 ms deadline over a 10 ms round trip: %v after %v, want the deadline's error before the SYN-ACK", err, time.Since(t0))
	}
}
