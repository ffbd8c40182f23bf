//go:build linux

package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// The HTTP loop serves a plain-HTTP box's connections in the lean loop's
// place: these check that a client gets from it, byte for byte, what it
// gets from the lean loop (itself held to net/http's answers in
// lean_test.go), through each way an exchange can go — answered on the
// loop, handed over before a request, handed over with its answer under
// way — and that the loop really served what it should.

// cannedAnswers are the raw origin's answers, by the name the request's
// path ends with ("/a/NAME"). A "|" splits an answer into writes 20 ms
// apart; "CLOSE" at the end closes the connection after it.
var cannedAnswers = map[string]string{
	"plain":      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Up: 1\r\n\r\nhello",
	"empty":      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n",
	"nocontent":  "HTTP/1.1 204 No Content\r\nX-Up: 1\r\n\r\n",
	"notmod":     "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n",
	"split":      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nCont|ent-Length: 10\r\n\r\n01234|56789",
	"chunked":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhel|lo\r\n6;e=1\r\n world\r\n0\r\nX-T: 1\r\n\r\n",
	"chunksplit": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5|\r\nhel|lo\r|\n0\r|\n\r\n",
	"badsize":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n",
	"continue":   "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok",
	"upclose":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nokCLOSE",
	"hopbyhop":   "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nKeep-Alive: timeout=5\r\nProxy-Connection: x\r\nContent-Length: 2\r\n\r\nok",
	"sniff":      "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\n<html>hi</html",
	"byclose":    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the closeCLOSE",
	"naming":     "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: X-Drop\r\nX-Drop: 1\r\nContent-Length: 2\r\n\r\nok",
	"garbage":    "garbage\r\n\r\nCLOSE",
	"nothing":    "CLOSE",
	"halfhead":   "HTTP/1.1 200 OK\r\nContent-Le|CLOSE",
	"short":      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly thisCLOSE",
	"badchunk":   "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX",
	"big":        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1048576\r\n\r\n" + strings.Repeat("b", 1<<20),
}

// cannedOrigin answers each request with the canned answer its path names
// (the body read first), until an answer closes the connection.
func cannedOrigin(t *testing.T) string {
	return tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		tp := textproto.NewReader(bufio.NewReader(c))
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return
			}
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			if n, _ := strconv.Atoi(h.Get("Content-Length")); n > 0 {
				io.CopyN(io.Discard, tp.R, int64(n))
			}
			_, path, _ := strings.Cut(line, " /a/")
			name, _, _ := strings.Cut(path, " ")
			answer, close := strings.CutSuffix(cannedAnswers[name], "CLOSE")
			for i, part := range strings.Split(answer, "|") {
				if i > 0 {
					time.Sleep(20 * time.Millisecond)
				}
				io.WriteString(c, part)
			}
			if close {
				return
			}
		}
	})
}

// startBoth starts the same path twice: its first box on the HTTP loop,
// and on the lean loop alone.
func startBoth(t *testing.T, src, upstream string) (loop, lean *Path) {
	t.Helper()
	loop = startYAML(t, src, upstream)
	lean = startYAMLWith(t, src, upstream, func(c *PathConfig) { c.Boxes[0].noLoop = true })
	if !loop.Boxes()[0].h1.EventLoop() || lean.Boxes()[0].h1.EventLoop() {
		t.Fatal("the paths are not one on the HTTP loop and one without it")
	}
	return loop, lean
}

// rawAnswers writes in on a new connection to addr and reads the answers
// to methods (one per request), then what follows until the box closes
// the connection (closes) or 300 ms pass; it returns the bytes read, each
// Date value replaced by "D".
func rawAnswers(t *testing.T, addr, in string, methods []string, closes bool) string {
	t.Helper()
	c := sendRaw(t, addr, in)
	var got bytes.Buffer
	br := bufio.NewReader(io.TeeReader(c, &got))
	for i, m := range methods {
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			t.Fatalf("answer %d: %v after %q", i+1, err, got.String())
		}
		io.Copy(io.Discard, resp.Body)
	}
	if closes {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
	} else {
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	}
	_, err := io.Copy(io.Discard, br)
	var ne net.Error
	switch timedOut := errors.As(err, &ne) && ne.Timeout(); {
	case closes && timedOut:
		t.Errorf("the connection stayed open after %q", got.String())
	case !closes && !timedOut:
		t.Errorf("the connection closed (%v) after %q", err, got.String())
	}
	out := dateValue.ReplaceAllString(got.String(), "Date: D\r\n")
	out = resetValue.ReplaceAllString(out, ";t=T")
	return retryValue.ReplaceAllString(out, "Retry-After: S")
}

// The values that depend on the moment: Date, and the seconds to the
// rate limit's window's end.
var (
	dateValue  = regexp.MustCompile(`Date: [^\r]*\r\n`)
	resetValue = regexp.MustCompile(`;t=[0-9]+`)
	retryValue = regexp.MustCompile(`Retry-After: [0-9]+`)
)

// firstDiff shows where a and b first differ, with some bytes around.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d of %d and %d:\n%q\n%q", i, len(a), len(b), a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}

// TestHTTPLoopAnswersAsLeanLoop: each exchange gets the same bytes from
// the HTTP loop as from the lean loop, and the loop serves, or hands over,
// what it should.
func TestHTTPLoopAnswersAsLeanLoop(t *testing.T) {
	get := func(name string, more ...string) string {
		return "GET /a/" + name + " HTTP/1.1\r\nHost: h\r\n" + strings.Join(more, "") + "\r\n"
	}
	const stages = "[{kind: waf}, {kind: uablock, patterns: [^blocked$]}, {kind: ratelimit, rate: 3/h, headersOnPass: true}]"
	tests := []struct {
		name    string
		in      string
		methods []string
		closes  bool
		served  int64 // requests the loop serves itself …
		handed  int64 // … and connections it hands over
	}{
		{"plain", get("plain"), []string{"GET"}, false, 1, 0},
		{"empty body", get("empty"), []string{"GET"}, false, 1, 0},
		{"204, then a request", get("nocontent") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"304", get("notmod"), []string{"GET"}, false, 1, 0},
		{"HEAD", "HEAD /a/plain HTTP/1.1\r\nHost: h\r\n\r\n", []string{"HEAD"}, false, 1, 0},
		{"answer in pieces", get("split"), []string{"GET"}, false, 1, 0},
		{"chunked with a trailer", get("chunked") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"chunk lines and CRLFs split between reads", get("chunksplit") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"a bad chunk size after a chunk", get("badsize"), nil, true, 1, 0},
		{"100 and 103 skipped", get("continue"), []string{"GET"}, false, 1, 0},
		{"the next hop closes", get("upclose") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"hop-by-hop answer headers dropped", get("hopbyhop"), []string{"GET"}, false, 1, 0},
		{"1 MiB body", get("big"), []string{"GET"}, false, 1, 0},
		{"the client closes", get("plain", "Connection: close\r\n"), []string{"GET"}, true, 1, 0},
		{"User-Agent blocked", get("plain", "User-Agent: blocked\r\n") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"over the rate limit", get("plain") + get("plain") + get("plain") + get("plain"), []string{"GET", "GET", "GET", "GET"}, false, 4, 0},
		{"garbage from the next hop", get("garbage"), []string{"GET"}, false, 1, 0},
		{"the next hop says nothing", get("nothing"), []string{"GET"}, false, 1, 0},
		{"half a head", get("halfhead"), []string{"GET"}, false, 1, 0},
		{"a body cut short", get("short"), nil, true, 1, 0},
		{"broken chunks", get("badchunk"), nil, true, 1, 0},
		{"no Content-Type (passed on as it is, not sniffed)", get("sniff") + get("plain"), []string{"GET", "GET"}, false, 2, 0},
		{"a body ended by the close", get("byclose") + get("plain"), []string{"GET", "GET"}, false, 1, 1},
		{"a Connection header naming another", get("naming"), []string{"GET"}, false, 1, 1},
		{"a body", "POST /a/plain HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc" + get("plain"), []string{"POST", "GET"}, false, 0, 1},
		{"a request, then one with a body", get("plain") + "POST /a/plain HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc", []string{"GET", "POST"}, false, 1, 1},
		{"HTTP/1.0", "GET /a/plain HTTP/1.0\r\n\r\n", []string{"GET"}, true, 0, 1},
		{"a head over 4 KiB", get("plain", "X-Big: "+strings.Repeat("x", 5000)+"\r\n"), []string{"GET"}, false, 0, 1},
		{"a bad request", "GET / HTTP/9.9\r\nHost: h\r\n\r\n", []string{"GET"}, true, 0, 1},
	}
	origin := "http://" + cannedOrigin(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loop, lean := startBoth(t, "boxes: [{responseHeaderTimeout: 2s, stages: "+stages+"}]", origin)
			fromLean := rawAnswers(t, strings.TrimPrefix(lean.URL(), "http://"), tt.in, tt.methods, tt.closes)
			fromLoop := rawAnswers(t, strings.TrimPrefix(loop.URL(), "http://"), tt.in, tt.methods, tt.closes)
			if fromLoop != fromLean {
				t.Errorf("the HTTP loop's answer and the lean loop's differ %s", firstDiff(fromLoop, fromLean))
			}
			loop.Close()
			lean.Close()
			if served, handed := loop.Boxes()[0].h1.LoopCounts(); served != tt.served || handed != tt.handed {
				t.Errorf("the loop served %d requests and handed over %d connections, want %d and %d", served, handed, tt.served, tt.handed)
			}
			ls, ns := loop.Stats().Boxes[0], lean.Stats().Boxes[0]
			ls.Listen, ls.URL, ns.Listen, ns.URL = "", "", "", ""
			if a, b := fmt.Sprintf("%+v", ls), fmt.Sprintf("%+v", ns); a != b {
				t.Errorf("counters on the HTTP loop %s\non the lean loop %s", a, b)
			}
		})
	}
}

// TestHTTPLoopBothWaits: the loop answers as the lean loop whether it
// blocks in epoll_wait or waits in the runtime's poller (bothWaits), and
// really waits the way it should.
func TestHTTPLoopBothWaits(t *testing.T) {
	origin := "http://" + cannedOrigin(t)
	in := "GET /a/plain HTTP/1.1\r\nHost: h\r\n\r\nGET /a/chunked HTTP/1.1\r\nHost: h\r\n\r\nGET /a/big HTTP/1.1\r\nHost: h\r\n\r\n"
	bothWaits(t, func(t *testing.T, start pathStarter) {
		loop := start(t, "boxes: [{stages: [{kind: waf}]}]", origin)
		lean := startYAMLWith(t, "boxes: [{stages: [{kind: waf}]}]", origin, func(c *PathConfig) { c.Boxes[0].noLoop = true })
		fromLean := rawAnswers(t, strings.TrimPrefix(lean.URL(), "http://"), in, []string{"GET", "GET", "GET"}, false)
		fromLoop := rawAnswers(t, strings.TrimPrefix(loop.URL(), "http://"), in, []string{"GET", "GET", "GET"}, false)
		if fromLoop != fromLean {
			t.Errorf("the HTTP loop's answer and the lean loop's differ %s", firstDiff(fromLoop, fromLean))
		}
		checkWait(t, loop.Boxes()[0], loop.Boxes()[0].h1.WaitsInPoller())
		loop.Close()
		if served, _ := loop.Boxes()[0].h1.LoopCounts(); served != 3 {
			t.Errorf("the loop served %d requests, want 3", served)
		}
	})
}
