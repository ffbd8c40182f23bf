//go:build linux

package proxy

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/fuzztest"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// FuzzLoopAnswer has the next hop answer a request with arbitrary bytes
// (then close): whatever they are, the client gets from the HTTP loop the
// bytes it gets from the lean loop (the lean forwarder's head rewriting,
// chunk framing, cuts, net/http's answers and its 502s), within a bound,
// and neither box panics.
func FuzzLoopAnswer(f *testing.F) {
	for _, a := range cannedAnswers {
		f.Add([]byte(strings.ReplaceAll(strings.TrimSuffix(a, "CLOSE"), "|", "")))
	}
	// What this target found: a status net/http reads as 0, which no
	// ResponseWriter takes (the lean forwarder panicked); bytes past an
	// answer, which the lean forwarder kept for the next request.
	f.Add([]byte("HTTP/1.1 000 OK\r\nContent-Length: 0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 204 No Content\r\n\r\n\r\n"))
	// The paths of issue 36: an unsolicited 101, a body without a
	// Content-Type (passed on as it is).
	f.Add([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n<html>"))
	var answer atomic.Pointer[[]byte]
	addr := tcptest.Serve(f, func(c net.Conn) {
		defer c.Close()
		if skipHead(bufio.NewReader(c)) == nil {
			c.Write(*answer.Load())
		}
	})
	logs := &panicLog{}
	src := "boxes: [{responseHeaderTimeout: 2s, stages: [{kind: waf}]}]"
	edit := func(lean bool) func(*PathConfig) {
		return func(c *PathConfig) { c.Log, c.Boxes[0].noLoop = logs, lean }
	}
	loop, lean := startYAMLWith(f, src, "http://"+addr, edit(false)), startYAMLWith(f, src, "http://"+addr, edit(true))
	get := func(t *testing.T, p *Path) string {
		c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		b, _ := io.ReadAll(c)
		out := dateValue.ReplaceAllString(string(b), "Date: D\r\n")
		return strings.ReplaceAll(out, addr, "ORIGIN")
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		defer fuzztest.Bound(15*time.Second, in)()
		answer.Store(&in)
		fromLoop, fromLean := get(t, loop), get(t, lean)
		if fromLoop != fromLean {
			t.Fatalf("the next hop answered %q: the HTTP loop's answer and the lean loop's differ %s\n%q\n%q", in, firstDiff(fromLoop, fromLean), fromLoop, fromLean)
		}
		if msg := logs.panicked(); msg != "" {
			t.Fatalf("a box panicked: %s", msg)
		}
	})
}
