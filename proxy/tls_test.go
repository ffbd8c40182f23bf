package proxy

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// tlsDial handshakes with the path's entry as a client that trusts it.
func tlsDial(p *Path) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", p.Boxes()[0].Addr(), &tls.Config{RootCAs: p.Boxes()[0].pool, ServerName: "127.0.0.1"})
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, nil
}

// TestTLSHandshakeDoesNotWaitForTheNextHop: a TLS-terminating bytes box
// answers the ClientHello while it dials its next hop. The next hop's
// accept queue is full (backlog 0 keeps one connection, which the test
// makes) and it accepts only once the client has handshaken: a box that
// dialed before reading the ClientHello would hold the handshake until its
// dial gave up (10 s, beyond the client's 5). Then the queue drains, the
// box's SYN sent again gets in and the request is answered.
func TestTLSHandshakeDoesNotWaitForTheNextHop(t *testing.T) {
	if !socket.BacklogSupported {
		t.Skip("a listen backlog needs Linux")
	}
	ln, err := socket.ListenBacklog("127.0.0.1:0", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	filler, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n        resumption: false\n", "http://"+ln.Addr().String())
	c, err := tlsDial(p)
	if err != nil {
		t.Fatalf("handshake while the next hop's queue is full: %v", err)
	}
	defer c.Close()
	served := make(chan error, 1)
	go func() {
		served <- func() error {
			for {
				up, err := ln.Accept()
				if err != nil {
					return err
				}
				defer up.Close()
				req, err := http.ReadRequest(bufio.NewReader(up))
				if errors.Is(err, io.EOF) {
					continue // the filler, closed below
				}
				if err != nil {
					return err
				}
				resp := &http.Response{StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1, Request: req, Close: true, ContentLength: 2,
					Body: io.NopCloser(strings.NewReader("ok"))}
				return resp.Write(up)
			}
		}()
	}()
	filler.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("answer through the box: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(body) != "ok" {
		t.Errorf("answer %d %q, want 200 ok", resp.StatusCode, body)
	}
	if err := <-served; err != nil {
		t.Errorf("next hop: %v", err)
	}
	s := waitStats(t, p, func(s BoxStats) bool { return s.Stages[0].Extra["handshakes"] == 1 })
	if s.Stages[0].Extra["handshakes"] != 1 || s.UpstreamErrors != 0 {
		t.Errorf("handshakes %d, upstream errors %d; want 1 and 0", s.Stages[0].Extra["handshakes"], s.UpstreamErrors)
	}
}

// TestTLSHandshakeAndDialFailures: with the handshake and the dial side by
// side, each failure is counted where it belongs. A next hop that refuses
// still lets the handshake complete (the terminator is a server first),
// then the client's connection is closed and the box counts an upstream
// error; a client that does not speak TLS fails the handshake, the dial is
// called off, and no upstream error is counted.
func TestTLSHandshakeAndDialFailures(t *testing.T) {
	gone := tcptest.FreeAddr(t)
	t.Run("next hop refuses", func(t *testing.T) {
		p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n", "http://"+gone)
		c, err := tlsDial(p)
		if err != nil {
			t.Fatalf("handshake: %v", err)
		}
		defer c.Close()
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("read %d bytes from a box whose next hop refused", n)
		}
		s := waitStats(t, p, func(s BoxStats) bool { return s.UpstreamErrors == 1 })
		if s.UpstreamErrors != 1 || s.Stages[0].Extra["handshakes"] != 1 || s.Stages[0].Extra["failed"] != 0 {
			t.Errorf("upstream errors %d, handshakes %d, failed %d; want 1, 1, 0", s.UpstreamErrors, s.Stages[0].Extra["handshakes"], s.Stages[0].Extra["failed"])
		}
	})
	t.Run("client does not speak TLS", func(t *testing.T) {
		up := origin(t)
		p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n", up.URL)
		c, err := net.Dial("tcp", p.Boxes()[0].Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, c) // the box answers with an alert, or not at all, and closes
		s := waitStats(t, p, func(s BoxStats) bool { return s.Stages[0].Extra["failed"] == 1 })
		if s.Stages[0].Extra["failed"] != 1 || s.UpstreamErrors != 0 {
			t.Errorf("failed handshakes %d, upstream errors %d; want 1 and 0", s.Stages[0].Extra["failed"], s.UpstreamErrors)
		}
	})
}

// TestTLSCurves: the key exchange a Go client (which, as k6, offers the
// hybrid X25519MLKEM768 and X25519, with a key share for each) agrees on
// is the one the box's curves allow, Go's preferred when several are; one
// the client sent no key share for still works (a HelloRetryRequest). The
// stage counts each handshake under its key exchange.
func TestTLSCurves(t *testing.T) {
	up := origin(t)
	for _, tt := range []struct {
		curves string
		want   tls.CurveID
		name   string
	}{
		{"", tls.X25519MLKEM768, "X25519MLKEM768"},
		{"        curves: [X25519]\n", tls.X25519, "X25519"},
		{"        curves: [p-256, X25519]\n", tls.X25519, "X25519"},
		{"        curves: [P-256]\n", tls.CurveP256, "P-256"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n"+tt.curves, up.URL)
			c, err := tlsDial(p)
			if err != nil {
				t.Fatal(err)
			}
			got := c.ConnectionState().CurveID
			c.Close()
			if got != tt.want {
				t.Errorf("agreed on %v, want %v", got, tt.want)
			}
			s := waitStats(t, p, func(s BoxStats) bool { return s.Stages[0].Extra["kx."+tt.name] == 1 })
			if n := s.Stages[0].Extra["kx."+tt.name]; n != 1 {
				t.Errorf("stage counts %d handshakes under kx.%s, want 1 (%v)", n, tt.name, s.Stages[0].Extra)
			}
		})
	}
}

// TestTLSHandshakeTimeout: a client that connects and says nothing is cut
// off at the stage's handshakeTimeout (200 ms here), not before, and its
// handshake counts as failed with the deadline as its reason.
func TestTLSHandshakeTimeout(t *testing.T) {
	up := origin(t)
	p := startYAML(t, "boxes:\n  - stages:\n      - kind: tls\n        handshakeTimeout: 200ms\n", up.URL)
	// The clock starts before the dial: the box may accept, and start its
	// deadline, before a busy scheduler returns from Dial here.
	start := time.Now()
	c, err := net.Dial("tcp", p.Boxes()[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.Copy(io.Discard, c) // until the box closes
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("cut off after %v, before the 200ms handshakeTimeout", waited)
	}
	s := waitStats(t, p, func(s BoxStats) bool { return s.Stages[0].Extra["failed"] == 1 })
	if s.Stages[0].Extra["failed"] != 1 {
		t.Fatalf("failed handshakes %d, want 1", s.Stages[0].Extra["failed"])
	}
	var why string
	for _, e := range p.Ledger() {
		if e.Action == ActRejected {
			why = e.Note
		}
	}
	if !strings.Contains(why, "deadline exceeded") {
		t.Errorf("ledger says %q, want the handshake's deadline", why)
	}
}
