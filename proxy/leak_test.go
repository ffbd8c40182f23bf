package proxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"github.com/middlebench/middlebench/internal/tcptest"
	"gopkg.in/yaml.v3"
)

// TestNoLeaksAfterUpstreamFaults: a box that met every upstream fault
// (502, 504, a cut body), a broken client body and a slow client, then
// closed, leaves no goroutine (the idle sweeper included) and no fd.
func TestNoLeaksAfterUpstreamFaults(t *testing.T) {
	faults := tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		readHead(c)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
	})
	good := origin(t)
	c := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	get(t, c, good.URL)
	c.CloseIdleConnections()
	defer leaktest.Check(t)()

	for _, upstream := range []string{"http://" + faults, good.URL, "http://127.0.0.1:1"} {
		p := startYAMLNoCleanup(t, "boxes: [{readHeaderTimeout: 200ms, responseHeaderTimeout: 200ms, stages: [{kind: waf}]}]", upstream)
		for _, path := range []string{"/", "/?size=100"} {
			if resp, err := c.Get(p.URL() + path); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		addr := strings.TrimPrefix(p.URL(), "http://")
		if s, err := net.Dial("tcp", addr); err == nil { // slow headers
			io.WriteString(s, "GET / HTTP/1.1\r\n")
			s.SetReadDeadline(time.Now().Add(3 * time.Second))
			io.ReadAll(s)
			s.Close()
		}
		if s, err := net.Dial("tcp", addr); err == nil { // broken chunked body
			io.WriteString(s, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
			s.SetReadDeadline(time.Now().Add(3 * time.Second))
			io.ReadAll(s)
			s.Close()
		}
		c.CloseIdleConnections()
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoLeaksOnCancelAndError: Run ended by its context (Ctrl-C) and a
// Start that fails half-way (the second box's address is taken) leave
// nothing behind.
func TestNoLeaksOnCancelAndError(t *testing.T) {
	up := origin(t)
	c := &http.Client{Transport: &http.Transport{}}
	get(t, c, up.URL)
	c.CloseIdleConnections()
	defer leaktest.Check(t)()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	out := &signalWriter{word: "entry: ", seen: make(chan struct{})}
	go func() {
		done <- Run(ctx, RunOptions{Listen: "127.0.0.1:0", Upstream: up.URL, Stages: []string{"waf:delay=1ms"}, Out: out})
	}()
	<-out.seen // the box serves
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var cfg PathConfig
	src := "boxes: [{name: a, stages: [{kind: waf}]}, {name: b, listen: '" + taken.Addr().String() + "'}]"
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	if p, err := Start(context.Background(), cfg, up.URL); err == nil {
		p.Close()
		t.Fatal("started on a taken address")
	}
}

// startYAMLNoCleanup starts a path the test closes itself.
func startYAMLNoCleanup(t *testing.T, src, upstream string) *Path {
	t.Helper()
	var cfg PathConfig
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	p, err := Start(context.Background(), cfg, upstream)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// signalWriter closes seen once word has been written to it.
type signalWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	word string
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.word)
	w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.word) {
		close(w.seen)
	}
	return len(p), nil
}
