package h1loop

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/middlebench/middlebench/internal/h1"
)

// TestHeaderKind: each header the forwarder acts on, in any case, and
// nothing else (names of the same lengths included).
func TestHeaderKind(t *testing.T) {
	special := []string{"content-length", "transfer-encoding", "connection", "proxy-connection", "keep-alive",
		"proxy-authenticate", "proxy-authorization", "te", "upgrade", "trailer", "content-type", "date"}
	for _, k := range special {
		for _, name := range []string{k, strings.ToUpper(k), http.CanonicalHeaderKey(k)} {
			if got := headerKind([]byte(name)); got != k {
				t.Errorf("headerKind(%q) = %q, want %q", name, got, k)
			}
		}
	}
	for _, name := range []string{"", "t", "tf", "data", "upgrades", "trailers", "connectiom", "keep_alive", "content-typo", "content-lengtx",
		"server-timing", "x-forwarded-for", "transfer-encodinf", "proxy-authenticatf", "proxy-authorizatiom", "proxy-connectiom"} {
		if got := headerKind([]byte(name)); got != "" {
			t.Errorf("headerKind(%q) = %q, want none", name, got)
		}
	}
}

// TestRespHeadLineEnds: an answer head the forwarder copies as bytes has
// CRLF at every line end; a bare LF anywhere, the status line included
// (which bytes.Cut on CRLF had let through, its reason phrase swallowing
// the next line), sends it to net/http's parser.
func TestRespHeadLineEnds(t *testing.T) {
	req, _ := http.NewRequest("GET", "/", nil)
	for _, tt := range []struct {
		head    string
		generic bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", false},
		{"HTTP/1.1 200 OK\nX-Hidden: 1\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nX-A: 1\nX-B: 2\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nX-A: 1\r\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nContent-Type:\t text/plain \t\r\nContent-Length:  2 \r\n\r\n", false},
	} {
		br := bufio.NewReader(strings.NewReader(tt.head + "ok"))
		h, err := readRespHead(br, req, nil)
		if err != nil || h.generic != tt.generic {
			t.Errorf("%q: generic %v (%v), want %v", tt.head, h.generic, err, tt.generic)
			continue
		}
		if !h.generic && (h.cl != 2 || h.status != 200) {
			t.Errorf("%q: status %d, length %d", tt.head, h.status, h.cl)
		}
	}
}

// TestTokenIs: tokenIs (headerKind's comparison) takes a name in any
// case and no other token of the same length.
func TestTokenIs(t *testing.T) {
	for _, name := range []string{"Content-Length", "CONTENT-LENGTH", "content-length"} {
		if !tokenIs([]byte(name), "content-length") {
			t.Errorf("tokenIs(%q) = false", name)
		}
	}
	for _, name := range []string{"content_length", "content-lengtH1", "content~length", "Content-Lengtz"} {
		if h1.IsToken(name) && tokenIs([]byte(name), "content-length") {
			t.Errorf("tokenIs(%q) = true", name)
		}
	}
}

// TestRespHeadLinesKept: the answer's header lines passed on are its own,
// in order, less the hop-by-hop ones and Transfer-Encoding (the writer
// frames chunks itself), whichever lines come where: from the head itself
// when none is dropped, copied when one is (4,000 seeded orders).
func TestRespHeadLinesKept(t *testing.T) {
	req, _ := http.NewRequest("GET", "/", nil)
	pool := []struct {
		line string
		kept bool
	}{
		{"Content-Type: text/plain", true}, {"Date: Wed, 02 Dec 2026 01:51:37 GMT", true}, {"Server-Timing: app;dur=0.002", true},
		{"X-Thing: 1", true}, {"Trailer: X-T", true}, {"CONTENT-TYPE: a/b", true}, {"content-length: 2", true},
		{"Keep-Alive: timeout=5", false}, {"Proxy-Connection: x", false}, {"Te: trailers", false}, {"Upgrade: h2c", false},
		{"connection: keep-alive", false}, {"Transfer-Encoding: chunked", false}, {"Proxy-Authenticate: Basic", false},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 0, 64)
	for range 4000 {
		var head, want strings.Builder
		head.WriteString("HTTP/1.1 200 OK\r\n")
		seenCT, seenCL, seenTE := false, false, false
		for range rng.IntN(7) {
			p := pool[rng.IntN(len(pool))]
			name, _, _ := strings.Cut(p.line, ":")
			switch strings.ToLower(name) {
			case "content-type":
				if seenCT {
					continue
				}
				seenCT = true
			case "content-length":
				if seenCL || seenTE {
					continue
				}
				seenCL = true
			case "transfer-encoding":
				if seenTE || seenCL {
					continue
				}
				seenTE = true
			}
			head.WriteString(p.line + "\r\n")
			if p.kept {
				want.WriteString(p.line + "\r\n")
			}
		}
		if !seenCL && !seenTE {
			head.WriteString("Content-Length: 2\r\n")
			want.WriteString("Content-Length: 2\r\n")
		}
		if !seenCT {
			head.WriteString("Content-Type: x/y\r\n")
			want.WriteString("Content-Type: x/y\r\n")
		}
		head.WriteString("\r\n")
		br := bufio.NewReader(strings.NewReader(head.String() + "ok"))
		h, err := readRespHead(br, req, buf[:0])
		if err != nil || h.generic {
			t.Fatalf("%q: generic %v, %v", head.String(), h.generic, err)
		}
		if string(h.lines) != want.String() {
			t.Fatalf("%q: lines passed on\n%q, want\n%q", head.String(), h.lines, want.String())
		}
		buf = h.buf
	}
}

// serverAnswer is what middlebench server answers GET / (the origin of
// bench-proxy.sh), and heyRequest what hey sends (proxy's BenchmarkBoxCost
// sends the same).
const (
	serverAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Server-Timing: app;dur=0.002, queue;dur=0.000, read;dur=0.000\r\nDate: Wed, 02 Dec 2026 01:51:37 GMT\r\n\r\n"
	heyRequest = "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: hey/0.0.1\r\nContent-Type: text/html\r\n\r\n"
)

// BenchmarkLeanHeads: the lean loop's own work on hey's request and
// middlebench server's answer, without sockets: the request head parsed,
// the next hop's head built, the answer's head sorted. Under callgrind
// (two -benchtime counts, their difference) its instructions per request
// are exact, where BenchmarkBoxCost's move with the scheduling.
func BenchmarkLeanHeads(b *testing.B) {
	lc := &leanConn{e: &Engine{cfg: Config{ReqSeq: new(atomic.Uint64)}}, remote: "127.0.0.1:40000", remoteHost: "127.0.0.1", hasRemoteHost: true}
	reqHead := []byte(fmt.Sprintf(heyRequest, "127.0.0.1:43001"))
	answer := serverAnswer
	var rd strings.Reader
	br := bufio.NewReaderSize(&rd, 4096)
	for b.Loop() {
		r, err := lc.parse(reqHead, 0)
		if err != nil {
			b.Fatal(err)
		}
		lc.head = lc.appendRequestHead(lc.head[:0], r)
		rd.Reset(answer)
		br.Reset(&rd)
		h, err := readRespHead(br, r, lc.resp[:0])
		if err != nil || h.generic {
			b.Fatalf("%+v, %v", h, err)
		}
		lc.resp = h.lines
	}
}
