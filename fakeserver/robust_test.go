package fakeserver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// rawExchange writes req on a new connection and reads every response the
// server sends until it closes the connection (or 5 s pass).
func rawExchange(t *testing.T, addr, req string) (resps []*http.Response, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			var ne net.Error
			return resps, !(errors.As(err, &ne) && ne.Timeout())
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		resps = append(resps, resp)
	}
}

// TestMalformedChunkedBodyIs400: a chunk size of "zz" is the client's
// error, answered 400 and counted as 400, not a client that left (499).
func TestMalformedChunkedBodyIs400(t *testing.T) {
	srv := start(t, Config{})
	resps, closed := rawExchange(t, srv.Addr().String(),
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
	if len(resps) != 1 || resps[0].StatusCode != http.StatusBadRequest {
		t.Fatalf("responses %v, want one 400", statuses(resps))
	}
	if !closed {
		t.Error("the connection stayed open after a body whose framing is lost")
	}
	waitRequests(t, srv, 1)
	if st := srv.Stats().Statuses; st["400"] != 1 || st["499"] != 0 {
		t.Errorf("server counted %v, want 400×1", st)
	}
}

// TestContentLengthWithTransferEncodingClosesTheConnection: RFC 9112 §6.1.
// The request is framed by Transfer-Encoding and answered, then the
// connection closes: the request smuggled behind it (?status=203) is
// never served. A chunked request without Content-Length keeps its
// connection, and the request behind it is served.
func TestContentLengthWithTransferEncodingClosesTheConnection(t *testing.T) {
	srv := start(t, Config{})
	const next = "GET /?status=203 HTTP/1.1\r\nHost: x\r\n\r\n"
	resps, closed := rawExchange(t, srv.Addr().String(),
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"+next)
	if got := statuses(resps); got != "200" || !closed {
		t.Fatalf("responses %s, closed %v; want 200 alone, then the connection closed", got, closed)
	}
	if !resps[0].Close {
		t.Error("the answer did not say Connection: close")
	}
	waitRequests(t, srv, 1)
	if st := srv.Stats().Statuses; st["203"] != 0 {
		t.Errorf("the smuggled request was served: %v", st)
	}

	resps, _ = rawExchange(t, srv.Addr().String(),
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"+next+"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if got := statuses(resps); got != "200 203 200" {
		t.Errorf("chunked keep-alive: responses %s, want 200 203 200", got)
	}
}

func statuses(resps []*http.Response) string {
	var s []string
	for _, r := range resps {
		s = append(s, r.Status[:3])
	}
	return strings.Join(s, " ")
}

// TestSlowClientTimeouts: a client sending its headers slowly is cut off
// after readHeaderTimeout; one sending its body slowly gets 408 after
// readTimeout. The defaults are the documented ones.
func TestSlowClientTimeouts(t *testing.T) {
	def := start(t, Config{})
	if h, r := def.http.ReadHeaderTimeout, def.http.ReadTimeout; h != DefaultReadHeaderTimeout || r != DefaultReadTimeout {
		t.Errorf("defaults: header %v, read %v; want %v, %v", h, r, DefaultReadHeaderTimeout, DefaultReadTimeout)
	}

	const hdr, whole = 300 * time.Millisecond, 600 * time.Millisecond
	srv := start(t, Config{ReadHeaderTimeout: units.Duration(hdr), ReadTimeout: units.Duration(whole)})
	t0 := time.Now()
	resps, closed := rawExchange(t, srv.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\n") // never ends its headers
	if el := time.Since(t0); len(resps) != 0 || !closed || el < hdr {
		t.Errorf("slow headers: %s after %v (closed %v), want the connection closed after at least %v", statuses(resps), el, closed, hdr)
	}

	t0 = time.Now()
	resps, closed = rawExchange(t, srv.Addr().String(), "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
	if el := time.Since(t0); statuses(resps) != "408" || !closed || el < whole {
		t.Errorf("slow body: %s after %v (closed %v), want 408 after at least %v", statuses(resps), el, closed, whole)
	}
	waitRequests(t, srv, 1)
	if st := srv.Stats().Statuses; st["408"] != 1 {
		t.Errorf("server counted %v, want 408×1", st)
	}
}
