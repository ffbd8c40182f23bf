package fakeserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"github.com/middlebench/middlebench/internal/units"
)

// warm makes the test's own HTTP client settle its pools before counting.
func warm(t *testing.T) {
	srv := start(t, Config{})
	get(t, nil, srv.URL()+"/")
	http.DefaultClient.CloseIdleConnections()
	srv.Close()
}

// TestNoLeaksAfterServing: a server that served good requests, slow
// clients cut off by its timeouts, a broken chunked body, a smuggling
// attempt and a client that left mid-body leaves nothing behind on Close.
func TestNoLeaksAfterServing(t *testing.T) {
	warm(t)
	defer leaktest.Check(t)()
	srv, err := Start(context.Background(), Config{Work: units.Fixed(time.Millisecond), Size: 1000,
		ReadHeaderTimeout: units.Duration(200 * time.Millisecond), ReadTimeout: units.Duration(400 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{}}
	for range 20 {
		resp, err := c.Get(srv.URL() + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	c.CloseIdleConnections()
	addr := srv.Addr().String()
	rawExchange(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n")                                          // slow headers
	rawExchange(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")             // slow body
	rawExchange(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") // broken chunk
	rawExchange(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
	gone, err := net.Dial("tcp", addr) // leaves mid-body
	if err != nil {
		t.Fatal(err)
	}
	gone.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc"))
	gone.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNoLeaksOnCancelAndError: a server whose context ends (Ctrl-C) while
// a request works (it finishes: Close is graceful), and a Start that
// fails, leave nothing behind.
func TestNoLeaksOnCancelAndError(t *testing.T) {
	warm(t)
	defer leaktest.Check(t)()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := Start(ctx, Config{Work: units.Fixed(300 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := c.Get(srv.URL() + "/"); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, 10*time.Second, func() string {
		if srv.Stats().InFlight == 0 {
			return "the request is not in flight"
		}
		return ""
	})
	cancel()
	<-srv.done // Serve returned: the context's close has begun
	_ = srv.Shutdown(context.Background())
	<-done
	c.CloseIdleConnections()

	if _, err := Start(context.Background(), Config{Listen: "127.0.0.1:99999"}); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("bad listen address: %v", err)
	}
	if _, err := Start(context.Background(), Config{Listen: "0.0.0.0:0"}); err == nil {
		t.Error("started on every interface")
	}
}
