package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/middlebench/middlebench/internal/tcptest"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// readHead reads one request head from c.
func readHead(c net.Conn) { skipHead(bufio.NewReader(c)) }

// skipHead reads one request head from br, through its empty line (for a
// next hop that reads several requests on one connection).
func skipHead(br *bufio.Reader) error {
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" {
			return err
		}
	}
}

// TestUpstreamFaults: each way a next hop can fail gets the client the
// status a gateway owes it, moves one counter, and leaves one ledger
// entry; none is counted as a client that left (the 499 it was before).
func TestUpstreamFaults(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		tests := []struct {
			name    string
			origin  func(net.Conn)
			status  int // 0: the client's connection is aborted
			counter func(BoxStats) int64
			action  string
			note    string
		}{
			{"closes without answering", func(c net.Conn) { readHead(c); c.Close() },
				502, func(s BoxStats) int64 { return s.UpstreamErrors }, ActBadGateway, "EOF"},
			{"closes after half a head", func(c net.Conn) { readHead(c); io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Le"); c.Close() },
				502, func(s BoxStats) int64 { return s.UpstreamErrors }, ActBadGateway, "malformed MIME header"},
			{"resets", func(c net.Conn) { readHead(c); abortConn(c) },
				502, func(s BoxStats) int64 { return s.UpstreamErrors }, ActBadGateway, "next hop"},
			{"sends garbage", func(c net.Conn) { readHead(c); io.WriteString(c, "garbage\r\n\r\n"); c.Close() },
				502, func(s BoxStats) int64 { return s.UpstreamErrors }, ActBadGateway, "malformed HTTP"},
			{"answers with status 000", func(c net.Conn) {
				readHead(c)
				io.WriteString(c, "HTTP/1.1 000 OK\r\nContent-Length: 0\r\n\r\n")
				c.Close()
			},
				502, func(s BoxStats) int64 { return s.UpstreamErrors }, ActBadGateway, `malformed HTTP status code "000"`},
			{"never answers", func(c net.Conn) { readHead(c); time.Sleep(3 * time.Second); c.Close() },
				504, func(s BoxStats) int64 { return s.UpstreamTimeouts }, ActGatewayTimeout, "timeout"},
			{"announces 1000 bytes and sends 10", func(c net.Conn) {
				readHead(c)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789")
				c.Close()
			}, 0, func(s BoxStats) int64 { return s.UpstreamCuts }, ActCut, "after 10 bytes of 1000 announced"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				addr := tcptest.Serve(t, func(c net.Conn) { defer c.Close(); tt.origin(c) })
				p := start(t, "boxes: [{responseHeaderTimeout: 300ms, stages: [{kind: waf}]}]", "http://"+addr)
				client := &http.Client{Timeout: 5 * time.Second}
				t0 := time.Now()
				resp, err := client.Get(p.URL() + "/")
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				switch {
				case tt.status == 0 && err == nil:
					t.Errorf("got %d with %d bytes, want the connection aborted", resp.StatusCode, len(body))
				case tt.status != 0 && err != nil:
					t.Errorf("got %v, want %d", err, tt.status)
				case tt.status != 0 && resp.StatusCode != tt.status:
					t.Errorf("got %d %q, want %d", resp.StatusCode, body, tt.status)
				}
				if tt.status == http.StatusGatewayTimeout {
					if el := time.Since(t0); el < 300*time.Millisecond || el > 2*time.Second {
						t.Errorf("504 after %v, want after the 300ms responseHeaderTimeout", el)
					}
				}
				s := waitStats(t, p, func(s BoxStats) bool { return tt.counter(s) == 1 })
				if tt.counter(s) != 1 || s.ClientAborts != 0 {
					t.Errorf("counters %+v: want this fault's counter at 1 and no client abort", s)
				}
				var found bool
				for _, e := range p.Ledger() {
					if e.Stage == "box" && e.Action == tt.action && strings.Contains(e.Note, tt.note) && e.Req == 1 {
						found = true
					}
				}
				if !found {
					t.Errorf("no ledger entry %q noting %q in %+v", tt.action, tt.note, p.Ledger())
				}
			})
		}
	})
}

// waitStats waits (up to 5 s) until the first box's stats satisfy ok: a
// handler counts after its client has its answer.
func waitStats(t *testing.T, p *Path, ok func(BoxStats) bool) BoxStats {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := p.Stats().Boxes[0]
		if ok(s) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBoxMalformedChunkedBodyIs400: the client sent a chunk size of "zz":
// its fault, answered 400, not counted as a client gone — by the box when
// it forwards the body as it comes (a ratelimit stage), by the WAF stage
// when it reads the body first.
func TestBoxMalformedChunkedBodyIs400(t *testing.T) {
	for _, stage := range []string{"{kind: ratelimit, rate: 1000/s}", "{kind: waf}"} {
		t.Run(stage, func(t *testing.T) { malformedChunked(t, stage) })
	}
}

func malformedChunked(t *testing.T, stage string) {
	p := startYAML(t, "boxes: [{stages: ["+stage+"]}]", origin(t).URL)
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("answer %v, %v; want 400", resp, err)
	}
	s := waitStats(t, p, func(s BoxStats) bool { return s.BadRequests+s.Stages[0].Rejected["400"] == 1 })
	if s.BadRequests+s.Stages[0].Rejected["400"] != 1 || s.ClientAborts != 0 || s.Stages[0].Rejected["499"] != 0 {
		t.Errorf("counters %+v: want one bad request, no client abort", s)
	}
}

// TestIdleUpstreamConnectionsDoNotStayInCloseWait: the origin closes its
// keep-alive connection after answering; the box closes its side within
// the sweep (1 s), not at the next request. The origin's socket in
// TIME-WAIT is the proof the test saw what it claims: the origin closed
// first and the box closed after it, with no request in between (a box that
// closed first would leave the origin's side without TIME-WAIT).
func TestIdleUpstreamConnectionsDoNotStayInCloseWait(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		if _, err := os.Stat("/proc/net/tcp"); err != nil {
			t.Skip("needs /proc/net/tcp")
		}
		answered, originClosed := make(chan struct{}), make(chan struct{}, 1)
		addr := tcptest.Serve(t, func(c net.Conn) {
			readHead(c)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			select { // close once the client has its answer
			case <-answered:
			case <-time.After(5 * time.Second):
			}
			c.Close()
			select {
			case originClosed <- struct{}{}:
			default:
			}
		})
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", "http://"+addr)
		resp, err := http.Get(p.URL() + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		close(answered)
		select {
		case <-originClosed:
		case <-time.After(5 * time.Second):
			t.Fatal("the origin did not close its connection within 5 s")
		}
		_, port, _ := net.SplitHostPort(addr)
		deadline := time.Now().Add(3 * upstream.SweepEvery)
		for {
			closeWait, timeWait := socketsIn(t, tcpCloseWait, "", port), socketsIn(t, tcpTimeWait, port, "")
			if closeWait == 0 && timeWait > 0 {
				return
			}
			if time.Now().After(deadline) {
				if closeWait > 0 {
					t.Fatalf("%d connections to the origin still in CLOSE-WAIT %v after the origin closed", closeWait, 3*upstream.SweepEvery)
				}
				t.Fatalf("no origin socket in TIME-WAIT %v after the origin closed: the box did not close its side after the origin's", 3*upstream.SweepEvery)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TCP states as /proc/net/tcp writes them.
const (
	tcpTimeWait  = "06"
	tcpCloseWait = "08"
)

// socketsIn counts the sockets in state whose local port is local and
// remote port is remote ("" matches any), from /proc/net/tcp.
func socketsIn(t *testing.T, state, local, remote string) int {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	hexPort := func(port string) string {
		if port == "" {
			return ""
		}
		var p int
		fmt.Sscan(port, &p)
		return fmt.Sprintf(":%04X", p)
	}
	wantLocal, wantRemote := hexPort(local), hexPort(remote)
	n := 0
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 3 && strings.HasSuffix(f[1], wantLocal) && strings.HasSuffix(f[2], wantRemote) && f[3] == state {
			n++
		}
	}
	return n
}

// TestListenLoopbackOnly: a box or admin address beyond loopback is
// refused, naming the box and the field, unless allowRemote says so.
func TestListenLoopbackOnly(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"boxes: [{name: waf, listen: '0.0.0.0:0'}]", `box "waf": listen: "0.0.0.0:0" listens on every interface`},
		{"boxes: [{listen: ':0'}]", `box "box1": listen: ":0" listens on every interface`},
		{"boxes: [{admin: '192.168.1.20:0'}]", `box "box1": admin: "192.168.1.20:0" is not a loopback address`},
		{"admin: '0.0.0.0:0'\nboxes: [{}]", `admin: "0.0.0.0:0" listens on every interface`},
	} {
		var cfg PathConfig
		if err := yaml.Unmarshal([]byte(tt.yaml), &cfg); err != nil {
			t.Fatal(err)
		}
		p, err := Start(t.Context(), cfg, "http://127.0.0.1:1")
		if err == nil {
			p.Close()
			t.Errorf("%s: started", tt.yaml)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("%s: %v, want %q and how to allow it", tt.yaml, err, tt.want)
		}
	}
}

// TestBoxSlowClientLimits: the defaults are the documented ones; a client
// whose headers never end is cut off after readHeaderTimeout; at maxConns
// the box stops accepting until a connection closes.
func TestBoxSlowClientLimits(t *testing.T) {
	onBothLoops(t, func(t *testing.T, start pathStarter) {
		p := start(t, "boxes: [{stages: [{kind: waf}]}]", origin(t).URL)
		srv := p.Boxes()[0].srv
		if srv.ReadHeaderTimeout != DefaultReadHeaderTimeout || srv.ReadTimeout != DefaultReadTimeout {
			t.Errorf("defaults: header %v, read %v", srv.ReadHeaderTimeout, srv.ReadTimeout)
		}
		if got := p.Boxes()[0].limits; got.MaxConns != DefaultMaxConns || got.ResponseHeaderTimeout.D() != DefaultResponseHeaderTimeout {
			t.Errorf("defaults: %+v", got)
		}

		p = start(t, "boxes: [{readHeaderTimeout: 300ms, maxConns: 2, stages: [{kind: waf}]}]", origin(t).URL)
		addr := strings.TrimPrefix(p.URL(), "http://")
		t0 := time.Now() // before the dial: the box's clock starts at its accept
		slow, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
		io.WriteString(slow, "GET / HTTP/1.1\r\nHost: x\r\n") // never ends its headers
		slow.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(slow); err != nil || time.Since(t0) < 300*time.Millisecond {
			t.Errorf("slow headers: closed after %v (%v), want a close after 300ms", time.Since(t0), err)
		}

		// Two connections hold the cap; a third waits until one closes.
		var held []net.Conn
		for range 2 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			held = append(held, c)
		}
		waitStats(t, p, func(s BoxStats) bool { return s.Active == 2 })
		third := make(chan error, 1)
		go func() {
			resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(p.URL() + "/")
			if err == nil {
				resp.Body.Close()
			}
			third <- err
		}()
		s := waitStats(t, p, func(s BoxStats) bool { return s.CapWaits >= 1 })
		select {
		case err := <-third:
			t.Fatalf("a third connection was served at maxConns 2: %v", err)
		default:
		}
		if s.Active != 2 || s.CapWaits < 1 {
			t.Errorf("at the cap: %+v", s)
		}
		held[0].Close()
		if err := <-third; err != nil {
			t.Errorf("after a slot freed: %v", err)
		}
	})
}
