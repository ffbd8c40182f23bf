package load

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// headRecorder answers every request with a fixed response and keeps
// each request head as it arrived.
type headRecorder struct {
	mu    sync.Mutex
	heads []string
}

func (h *headRecorder) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		head, err := readTestHead(br)
		if err != nil {
			return
		}
		h.mu.Lock()
		h.heads = append(h.heads, head)
		h.mu.Unlock()
		resp := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"
		if strings.HasPrefix(head, "HEAD ") {
			resp = resp[:len(resp)-3]
		}
		if _, err := c.Write([]byte(resp)); err != nil {
			return
		}
	}
}

// recorded returns the heads so far. The lock is the test's only
// ordering: the lean client's reads are raw system calls, which the race
// detector does not see as synchronizing with the server's writes.
func (h *headRecorder) recorded() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.heads)
}

func ptr[T any](v T) *T { return &v }

// lean reports whether cfg's requests go through the lean client.
func lean(t *testing.T, cfg *Config) bool {
	t.Helper()
	scs, err := prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return scs[0].mix.h1Addr() != ""
}

// TestLeanHeadIsNetHTTPs: the lean client's request heads are the bytes
// net/http writes for the same request, so data_sent and what the server
// sees do not depend on the client.
func TestLeanHeadIsNetHTTPs(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"plain GET", Config{}},
		{"query and headers", Config{URL: "/p/a%20th?x=1&y=%C3%A9", Headers: map[string]string{"X-B": "2", "accept": "text/plain", "X-A": " padded "}}},
		{"user agent set", Config{UserAgent: ptr("k6/1.8.1 (https://k6.io/)")}},
		{"no user agent", Config{UserAgent: ptr("")}},
		{"host override", Config{Headers: map[string]string{"Host": "example.test"}}},
		{"no connection reuse", Config{NoConnectionReuse: true, Headers: map[string]string{"Z-Last": "z"}}},
		{"compression", Config{Compress: true}},
		{"HEAD", Config{Method: http.MethodHead}},
		{"OPTIONS", Config{Method: http.MethodOptions}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var heads [2]*headRecorder
			for i, netHTTPOnly := range []bool{true, false} {
				heads[i] = &headRecorder{}
				cfg := tt.cfg
				cfg.URL = "http://" + tcptest.Serve(t, heads[i].serve) + tt.cfg.URL
				cfg.VUs, cfg.Iterations = 1, 2
				if !netHTTPOnly && !lean(t, &cfg) {
					t.Fatal("the lean client does not take this request")
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res, err := Run(ctx, &cfg, Options{netHTTPOnly: netHTTPOnly})
				cancel()
				if err != nil || res.Requests != 2 || res.Failed != 0 {
					t.Fatalf("net/http only %v: %v %v %v", netHTTPOnly, err, res, res.ErrorExamples)
				}
			}
			std, h1 := heads[0].recorded(), heads[1].recorded()
			if len(std) != 2 || len(h1) != 2 {
				t.Fatalf("heads: net/http %d, lean %d; want 2 each", len(std), len(h1))
			}
			// Host is the listener's address, which differs between the two runs.
			addr := func(s string) string {
				return string(bytes.Join(slices.DeleteFunc(bytes.SplitAfter([]byte(s), []byte("\r\n")), func(l []byte) bool {
					return bytes.HasPrefix(l, []byte("Host: 127.0.0.1:"))
				}), nil))
			}
			for i := range 2 {
				if std, h1 := addr(std[i]), addr(h1[i]); std != h1 {
					t.Errorf("request %d:\nnet/http: %q\nlean:     %q", i, std, h1)
				}
			}
		})
	}
}

// TestLeanLeavesToNetHTTP: what the lean client does not send goes
// through net/http, for the whole mix.
func TestLeanLeavesToNetHTTP(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "https://127.0.0.1:1/"},
		{URL: "http://127.0.0.1:1/", BodySize: 10},
		{URL: "http://127.0.0.1:1/", Method: http.MethodPost},
		{URL: "http://127.0.0.1:1/", Method: http.MethodDelete},
		{URL: "http://127.0.0.1:1/", Headers: map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"}},
		{URL: "http://127.0.0.1:1/", Headers: map[string]string{"Expect": "100-continue"}},
		{URL: "http://127.0.0.1:1/", Headers: map[string]string{"X-Big": string(bytes.Repeat([]byte("a"), h1MaxHead))}},
		{URL: "http://user:pw@127.0.0.1:1/"},
		{Requests: []Request{{URL: "http://127.0.0.1:1/"}, {URL: "http://127.0.0.1:2/"}}},
		{Requests: []Request{{URL: "http://127.0.0.1:1/"}, {URL: "http://127.0.0.1:1/up", Method: http.MethodPut}}},
	} {
		if lean(t, &cfg) {
			t.Errorf("%+v went through the lean client", cfg)
		}
	}
	if !lean(t, &Config{Requests: []Request{{URL: "http://127.0.0.1:1/a"}, {URL: "http://127.0.0.1:1/b", Method: http.MethodHead}}}) {
		t.Error("a mix of GET and HEAD to one address did not go through the lean client")
	}
}

// FuzzParseHead: a head parseHead accepts is one http.ReadResponse reads
// the same way (status, protocol, length, keep-alive, the headers the
// engine uses).
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer-Timing: app;dur=1.5\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 302 Found\r\nLocation: /x\r\nconnection: Close\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 204\r\nContent-Encoding: x-gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h h1Head
		if !parseHead(b, &h) {
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), &http.Request{Method: http.MethodGet})
		if err != nil {
			t.Fatalf("parseHead accepted %q, net/http: %v", b, err)
		}
		wantLen := resp.ContentLength
		if bodyless(http.MethodGet, resp.StatusCode) {
			wantLen = h.length // net/http reports 0 or -1; the engine reads no body either way
		}
		if h.status != resp.StatusCode || int(h.proto) != resp.ProtoMajor*10+resp.ProtoMinor || h.length != wantLen ||
			(h.close || (h.length < 0 && !bodyless(http.MethodGet, h.status))) != resp.Close ||
			h.gzip != hasGzip(resp.Header["Content-Encoding"]) || h.location != resp.Header.Get("Location") ||
			!slices.Equal(h.serverTiming, resp.Header["Server-Timing"]) {
			t.Fatalf("%q: parseHead %+v, net/http status %d proto %d.%d length %d close %v header %v",
				b, h, resp.StatusCode, resp.ProtoMajor, resp.ProtoMinor, resp.ContentLength, resp.Close, resp.Header)
		}
	})
}

// BenchmarkParseHead: the lean client's reading of a typical response
// head, with the headers it acts on; no allocation.
func BenchmarkParseHead(b *testing.B) {
	head := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 1024\r\n" +
		"Date: Fri, 04 Dec 2026 23:00:00 GMT\r\nServer-Timing: app;dur=0.052, queue;dur=0.000, read;dur=0.001\r\n" +
		"Connection: keep-alive\r\n\r\n")
	var h h1Head
	if !parseHead(head, &h) || h.status != 200 || h.length != 1024 || h.close || len(h.serverTiming) != 1 {
		b.Fatalf("parseHead: %+v", h)
	}
	b.SetBytes(int64(len(head)))
	b.ReportAllocs()
	for b.Loop() {
		parseHead(head, &h)
	}
}
