package fakeserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkNoWorkHandler is the server's own cost per request, without the
// network: parse, record, Server-Timing, write. Allocations per request are
// what `make bench` watches.
func BenchmarkNoWorkHandler(b *testing.B) {
	srv, err := Start(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req = req.WithContext(context.WithValue(req.Context(), connKey{}, &connState{}))
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		srv.ServeHTTP(w, req)
	}
}

// BenchmarkNoWorkLoopback is a whole request over loopback keep-alive.
func BenchmarkNoWorkLoopback(b *testing.B) {
	srv, err := Start(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := c.Get(srv.URL())
			if err != nil {
				b.Error(err)
				return
			}
			resp.Body.Close()
		}
	})
}

type discardWriter struct {
	h    http.Header
	code int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.code = code }
