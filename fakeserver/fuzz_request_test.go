package fakeserver

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/fuzztest"
	"github.com/middlebench/middlebench/internal/units"
)

// FuzzServerRequest writes raw bytes to the fake server: whatever the
// bytes, every answer is a well-formed HTTP response, within a bound; input
// that Go's request parser reads as one whole request is answered unless
// the server counted it as a client gone (a half-closed connection is one,
// to net/http). The server runs on a fake clock that a driver moves an hour
// at a time, so ?work= never waits; ?cpu= burns real CPU and is skipped.
func FuzzServerRequest(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /?work=1h&size=10&status=503 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /?size=abc HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /?status=203 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /_mb/stats HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /_mb/reset HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0.5\r\n\r\n",
		"HEAD /?size=100 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
		"garbage\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	fc := clock.NewFake(time.Unix(1_700_000_000, 0))
	srv, err := Start(context.Background(), Config{Clock: fc, MaxSize: units.MiB, Gzip: true,
		ReadHeaderTimeout: units.Duration(2 * time.Second), ReadTimeout: units.Duration(2 * time.Second)})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // every wait on the fake clock ends at once
		for {
			select {
			case <-stop:
				return
			default:
			}
			if fc.WaitPending(1, 10*time.Millisecond) {
				fc.Advance(time.Hour)
			}
		}
	}()
	addr := srv.Addr().String()

	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Contains(in, []byte("cpu=")) {
			t.Skip("?cpu= burns real CPU")
		}
		defer fuzztest.Bound(10*time.Second, in)()
		gone := srv.Stats().Statuses["499"]
		out, resps, err := fuzztest.Exchange(t, addr, in)
		if len(resps) == 0 && len(out) > 0 {
			t.Fatalf("not an HTTP response: %v\n%q", err, out)
		}
		answers := len(resps)
		if answers == 0 && fuzztest.WholeRequest(in) && srv.Stats().Statuses["499"] == gone {
			t.Fatalf("a whole request got no answer and no client gone was counted: %q", in)
		}
	})
}
