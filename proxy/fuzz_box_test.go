package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/fuzztest"
	"github.com/middlebench/middlebench/internal/units"
)

// panicLog records what a box logs, so that a recovered handler panic
// (net/http logs "http: panic serving …") fails the fuzz target.
type panicLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *panicLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *panicLog) panicked() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := strings.Index(l.buf.String(), "panic"); i >= 0 {
		return l.buf.String()[i:]
	}
	return ""
}

// FuzzBoxRequest writes raw bytes to an HTTP box in front of a test
// origin: whatever the bytes, the box answers each request it reads with
// its own 4xx/5xx or with what the origin answered (the origin marks its
// answers), within a bound, and never panics. Input that Go's own request
// parser reads as one whole request must get at least one answer.
func FuzzBoxRequest(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /?a=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
		"GET http://other/ HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc",
		"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
		"garbage\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Fuzz-Origin", "1")
		io.WriteString(w, "origin")
	}))
	defer up.Close()
	var cfg PathConfig
	logs := &panicLog{}
	cfg.Boxes = []BoxConfig{{BoxLimits: BoxLimits{ReadHeaderTimeout: units.Duration(2 * time.Second), ReadTimeout: units.Duration(2 * time.Second), ResponseHeaderTimeout: units.Duration(2 * time.Second)}}}
	sc, err := ParseStage("waf:maxBody=1MiB")
	if err != nil {
		f.Fatal(err)
	}
	cfg.Boxes[0].Stages = []StageConfig{sc}
	cfg.Log = logs
	p, err := Start(context.Background(), cfg, up.URL)
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	addr := strings.TrimPrefix(p.URL(), "http://")

	f.Fuzz(func(t *testing.T, in []byte) {
		defer fuzztest.Bound(10*time.Second, in)()
		aborts := p.Stats().Boxes[0].ClientAborts + rejected499(p)
		out, resps, _ := fuzztest.Exchange(t, addr, in)
		answers := len(resps)
		for _, resp := range resps {
			fromOrigin := resp.Header.Get("X-Fuzz-Origin") == "1"
			optionsStar := resp.StatusCode == http.StatusOK && bytes.HasPrefix(in, []byte("OPTIONS * ")) // net/http answers it
			if !fromOrigin && !optionsStar && resp.StatusCode < 400 && resp.StatusCode != http.StatusContinue && resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("the box answered %d itself; want a 4xx/5xx or the origin's answer\n%q", resp.StatusCode, out)
			}
		}
		// A half-closed connection is a client that left, to net/http
		// (and nginx): its request may go unanswered, but is counted.
		if answers == 0 && fuzztest.WholeRequest(in) && p.Stats().Boxes[0].ClientAborts+rejected499(p) == aborts {
			t.Fatalf("a whole request got no answer and no client abort was counted: %q", out)
		}
		if msg := logs.panicked(); msg != "" {
			t.Fatalf("the box panicked: %s", msg)
		}
	})
}

func rejected499(p *Path) int64 {
	var n int64
	for _, st := range p.Stats().Boxes[0].Stages {
		n += st.Rejected["499"]
	}
	return n
}
