package load

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// rawServer accepts connections on 127.0.0.1:0 and hands each to serve.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	return "http://" + tcptest.Serve(t, serve) + "/"
}

// readRequest consumes the request head.
func readRequest(c net.Conn) {
	buf := make([]byte, 4096)
	var got []byte
	for !bytes.Contains(got, []byte("\r\n\r\n")) {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		got = append(got, buf[:n]...)
	}
}

func TestHostileServers(t *testing.T) {
	tests := []struct {
		name  string
		serve func(net.Conn)
		class string
	}{
		{"reset", func(c net.Conn) {
			readRequest(c)
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}, "reset"},
		{"closes without answering", func(c net.Conn) { readRequest(c); c.Close() }, "eof"},
		{"garbage", func(c net.Conn) {
			readRequest(c)
			c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n\r\n"))
			c.Close()
		}, "protocol"},
		{"truncated body", func(c net.Conn) {
			readRequest(c)
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this much"))
			c.Close()
		}, "eof"},
		{"hangs", func(c net.Conn) {
			readRequest(c)
			time.Sleep(2 * time.Second)
			c.Close()
		}, "timeout"},
		{"bad gzip", func(c net.Conn) {
			readRequest(c)
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 23\r\nConnection: close\r\n\r\nthis is not gzip at all"))
			c.Close()
		}, "decompress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := rawServer(t, tt.serve)
			res := runFor(t, &Config{URL: url, VUs: 2, Iterations: 6, Timeout: dur(150 * time.Millisecond), Compress: true}, 30*time.Second)
			t.Logf("%v; errors %v; codes %v; examples %v", res, res.Errors, res.ErrorCodes, res.ErrorExamples)
			if res.Requests != 6 || res.Failed != 6 {
				t.Errorf("%d requests, %d failed; want 6 and 6", res.Requests, res.Failed)
			}
			if res.Errors[tt.class] != 6 {
				t.Errorf("errors %v, want 6 × %s", res.Errors, tt.class)
			}
			if d := res.Document(); d.Metrics[mHTTPFailed].Values["rate"] != 1 {
				t.Errorf("http_req_failed rate %v", d.Metrics[mHTTPFailed].Values)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	ln.Close() // nothing listens there now
	cfg := &Config{URL: url, VUs: 1, Iterations: 3}
	// As k6: no pre-flight; the run goes on and counts every request failed.
	res := runFor(t, cfg, 10*time.Second)
	if res.Requests != 3 || res.Failed != 3 {
		t.Errorf("%d requests, %d failed, want 3 and 3", res.Requests, res.Failed)
	}
	if res.Errors["refused"] != 3 || res.ErrorCodes[codeDialRefused] != 3 {
		t.Errorf("errors %v codes %v, want 3 refused dials (k6 1212)", res.Errors, res.ErrorCodes)
	}
}

func TestHTTPErrorsAndServerTimingAbsent(t *testing.T) {
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	res := runFor(t, &Config{URL: s.URL, VUs: 1, Iterations: 4}, 10*time.Second)
	d := res.Document()
	if res.Statuses[429] != 4 || res.Failed != 4 || res.ErrorCodes[1429] != 4 || d.Statuses["429"] != 4 {
		t.Errorf("statuses %v failed %d codes %v", res.Statuses, res.Failed, res.ErrorCodes)
	}
	if _, ok := d.Metrics[mServerTime]; ok {
		t.Error("server_time reported without a Server-Timing header")
	}
	if _, ok := d.Metrics[expectedDuration]; ok {
		t.Error("the expected_response:true submetric has values though every response failed")
	}
}

func TestCompressionAndUpload(t *testing.T) {
	payload := bytes.Repeat([]byte("middlebench "), 4000) // 48 kB, compresses well
	var uploaded []int64
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		uploaded = append(uploaded, n)
		if r.Header.Get("Accept-Encoding") == "gzip" {
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			gz.Write(payload)
			gz.Close()
			return
		}
		w.Write(payload)
	}))
	res := runFor(t, &Config{URL: s.URL, VUs: 1, Iterations: 3, Compress: true, BodySize: 256 << 10}, 10*time.Second)
	if res.Failed != 0 {
		t.Fatalf("failed: %v", res.ErrorExamples)
	}
	for _, n := range uploaded {
		if n != 256<<10 {
			t.Errorf("server read %d bytes, want %d", n, 256<<10)
		}
	}
	recv := res.Document().Metrics[mDataReceived].Values["count"]
	sent := res.Document().Metrics[mDataSent].Values["count"]
	t.Logf("data_received %v (3 × %d bytes uncompressed), data_sent %v", recv, len(payload), sent)
	if recv >= float64(3*len(payload)) || recv == 0 {
		t.Errorf("data_received %v counts decompressed bytes", recv)
	}
	if sent < 3*(256<<10) {
		t.Errorf("data_sent %v < the 3 uploads", sent)
	}
}

// TestInterruptedRunKeepsResults: cancelling the context (Ctrl-C) ends the
// run at once and returns what was measured.
func TestInterruptedRunKeepsResults(t *testing.T) {
	s := newServer(t, sleepyHandler(5*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, &Config{URL: s.URL, VUs: 2, Duration: dur(time.Minute)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 3*time.Second || !res.Aborted || res.Requests == 0 || !res.Document().Run.Interrupted {
		t.Errorf("after cancel: %v, aborted %v, took %v", res, res.Aborted, time.Since(start))
	}
}

func TestTLSVerification(t *testing.T) {
	s := httptest.NewTLSServer(sleepyHandler(0))
	t.Cleanup(s.Close)
	res := runFor(t, &Config{URL: s.URL, VUs: 1, Iterations: 2}, 10*time.Second)
	if res.Errors["tls"] != 2 || res.ErrorCodes[codeX509Authority] != 2 {
		t.Errorf("errors %v codes %v (%v), want 2 × tls, k6 1310", res.Errors, res.ErrorCodes, res.ErrorExamples)
	}
	ok := runFor(t, &Config{URL: s.URL, VUs: 1, Iterations: 2, InsecureSkipTLSVerify: true}, 10*time.Second)
	if ok.Failed != 0 {
		t.Errorf("insecureSkipTLSVerify: %v", ok.ErrorExamples)
	}
}
