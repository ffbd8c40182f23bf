//go:build linux

package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// What the HTTP loop must do beyond answering as the lean loop: end with
// its box, hold back from a slow reader, keep many clients apart.

// TestHTTPLoopEndsWithTheBox: closing a box ends the connections on its
// loop whatever they are doing — idle, mid-head, waiting on a dial or on
// the next hop, receiving a body they do not read — at once, and leaves
// no descriptor or goroutine behind.
func TestHTTPLoopEndsWithTheBox(t *testing.T) {
	release := make(chan struct{})
	addr := tcptest.Serve(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for skipHead(br) == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 67108864\r\n\r\n")
			for range 64 << 10 { // 64 MiB a KiB at a time, until the box closes or the test ends
				select {
				case <-release:
					return
				default:
				}
				if _, err := c.Write(make([]byte, 1024)); err != nil {
					return
				}
			}
		}
	})
	defer leaktest.Check(t)() // after the origin, whose listener lives until the test's cleanup
	defer close(release)
	p := startYAMLNoCleanup(t, "boxes: [{stages: [{kind: waf}]}]", "http://"+addr)
	boxAddr := strings.TrimPrefix(p.URL(), "http://")
	var conns []net.Conn
	for i := range 12 {
		c, err := net.Dial("tcp", boxAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		switch i % 3 {
		case 1:
			io.WriteString(c, "GET / HTTP/1.1\r\nHo") // mid-head
		case 2:
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n\r\n") // a body it does not read
		}
		conns = append(conns, c)
	}
	waitStats(t, p, func(s BoxStats) bool { return s.Requests == 4 && s.Active == 12 })
	closeWithin(t, p, "connections on its loop")
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("conn %d after the box closed: %v, want its end", i, err)
		}
	}
}

// TestHTTPLoopSlowReader: a client that reads a 16 MiB answer slowly gets
// every byte in order, the box holding back rather than buffering it, and
// its connection serves the next request after.
func TestHTTPLoopSlowReader(t *testing.T) {
	const size = 16 << 20
	body := make([]byte, size)
	for i := range body {
		body[i] = byte(i * 7 % 251)
	}
	answer := append([]byte("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n"), body...)
	addr := tcptest.Serve(t, func(c net.Conn) { serveRaw(c, answer) })
	p := startYAML(t, "boxes: [{stages: [{kind: waf}]}]", "http://"+addr)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReaderSize(c, 4096)
	for i := range 2 {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		got := make([]byte, 0, size)
		buf := make([]byte, 64<<10)
		for n := 0; ; n++ {
			if i == 0 && n%16 == 0 {
				time.Sleep(5 * time.Millisecond) // the first answer is read slowly: the box's writes meet a full socket
			}
			k, err := resp.Body.Read(buf)
			got = append(got, buf[:k]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("answer %d after %d bytes: %v", i+1, len(got), err)
			}
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("answer %d: %d bytes, not the %d the next hop sent", i+1, len(got), size)
		}
	}
	p.Close()
	if served, handed := p.Boxes()[0].h1.LoopCounts(); served != 2 || handed != 0 {
		t.Errorf("the loop served %d requests and handed over %d connections, want 2 and 0", served, handed)
	}
}

// TestHTTPLoopManyClients: 200 keep-alive clients at once, 25 requests
// each for bodies of random sizes (0 to 200 KiB, chunked or not), through
// one box: every answer whole and the box's counts exact.
func TestHTTPLoopManyClients(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/octet-stream")
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.Write(bytes.Repeat([]byte{byte(n)}, n))
	}))
	defer up.Close()
	p := startYAML(t, "boxes: [{stages: [{kind: waf}, {kind: ratelimit, rate: 1000000/s}]}]", up.URL)
	const clients, each = 200, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Go(func() {
			tr := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			for range each {
				n := rng.IntN(200 << 10)
				chunked := ""
				if rng.IntN(2) == 0 {
					chunked = "&chunked=1"
				}
				resp, err := c.Get(fmt.Sprintf("%s/?n=%d%s", p.URL(), n, chunked))
				if err != nil {
					errs <- err
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || len(b) != n || n > 0 && b[n-1] != byte(n) {
					errs <- fmt.Errorf("n=%d%s: %d bytes (%v)", n, chunked, len(b), err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s := waitStats(t, p, func(s BoxStats) bool { return s.Requests == clients*each })
	if s.Requests != clients*each || s.Accepted != clients || s.UpstreamErrors+s.UpstreamCuts+s.ClientAborts != 0 {
		t.Errorf("%+v: want %d requests on %d connections and no fault", s, clients*each, clients)
	}
	p.Close()
	if served, handed := p.Boxes()[0].h1.LoopCounts(); served != clients*each || handed != 0 {
		t.Errorf("the loop served %d requests and handed over %d connections, want %d and 0", served, handed, clients*each)
	}
}
