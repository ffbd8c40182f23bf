package merge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

// receiving starts Receive with o (Listen, Expect 1 and Wait filled in when
// unset) and returns its base URL and its outcome.
func receiving(t *testing.T, o ReceiveOptions) (string, <-chan error) {
	t.Helper()
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.Expect == 0 {
		o.Expect = 1
	}
	if o.Wait == 0 {
		o.Wait = time.Minute
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan string, 1)
	done := make(chan error, 1)
	o.Options = Options{Stdout: io.Discard}
	o.Ready = func(a string) { ready <- a }
	go func() {
		_, err := Receive(ctx, o)
		done <- err
	}()
	select {
	case a := <-ready:
		return "http://" + a, done
	case err := <-done:
		t.Fatalf("Receive: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("Receive did not listen in 5 s")
	}
	return "", nil
}

func putWith(t *testing.T, url string, body []byte, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}

// TestReceiveListenIsLoopbackUnlessAllowed: --listen is as strict as every
// other listener (it bound every interface), and beyond loopback it needs
// the token.
func TestReceiveListenIsLoopbackUnlessAllowed(t *testing.T) {
	for _, tt := range []struct {
		o    ReceiveOptions
		want string
	}{
		{ReceiveOptions{Listen: "0.0.0.0:0"}, "--listen"},
		{ReceiveOptions{Listen: ":0"}, "--listen"},
		{ReceiveOptions{Listen: "0.0.0.0:0", AllowRemote: true}, "token"},
	} {
		tt.o.Expect, tt.o.Wait, tt.o.Options = 1, time.Second, Options{Stdout: io.Discard}
		_, err := Receive(context.Background(), tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error naming %s", tt.o.Listen, err, tt.want)
		}
	}
}

// TestReceivePutNeedsTheToken: without the shared token (or with another)
// a PUT is 401 and nothing is merged; with it, as a bearer token or as
// the password of the URL's user (what load --results-url
// http://mb:TOKEN@host/… sends), it is taken.
func TestReceivePutNeedsTheToken(t *testing.T) {
	doc := encodeDoc(t, partDoc(t, "0:1", time.Now(), []time.Duration{time.Millisecond, 2 * time.Millisecond}, nil))
	base, done := receiving(t, ReceiveOptions{Token: "s3cret", Expect: 1})
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "Basic bWI6d3Jvbmc="}} {
		if code, msg := putWith(t, base+"/results/0", doc, h...); code != http.StatusUnauthorized {
			t.Errorf("PUT with %v: %d %q, want 401", h, code, msg)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("merged after refused PUTs: %v", err)
	default:
	}
	resp, err := http.Get(base + "/merged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /merged after refused PUTs: %d, want 404 (nothing merged)", resp.StatusCode)
	}
	u := strings.Replace(base, "http://", "http://mb:s3cret@", 1)
	if code, msg := putWith(t, u+"/results/0", doc); code != http.StatusNoContent {
		t.Fatalf("PUT with the token as the URL's password: %d %q", code, msg)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	base2, _ := receiving(t, ReceiveOptions{Token: "s3cret", Expect: 2})
	if code, msg := putWith(t, base2+"/results/0", doc, "Authorization", "Bearer s3cret"); code != http.StatusNoContent {
		t.Errorf("PUT with the bearer token: %d %q", code, msg)
	}
}

// TestReceiveRefusesInconsistentDocuments: a document whose counts do not
// add up with its duration and rate (a forged one with 1e9 requests
// decided the merged verdict) or with its own histograms is refused, 400,
// naming what does not add up.
func TestReceiveRefusesInconsistentDocuments(t *testing.T) {
	base, _ := receiving(t, ReceiveOptions{Expect: 2})
	good := func() *metrics.Document {
		return partDoc(t, "0:1/2", time.Now(), []time.Duration{time.Millisecond, 2 * time.Millisecond}, nil)
	}
	for _, tt := range []struct {
		name string
		edit func(d *metrics.Document)
		says string
	}{
		{"1e9 requests at the old rate", func(d *metrics.Document) {
			m := d.Metrics["http_reqs"]
			m.Values = map[string]float64{"count": 1e9, "rate": m.Values["rate"]}
			d.Metrics["http_reqs"] = m
		}, "http_reqs"},
		{"1e9 requests, rate to match, histogram of 2", func(d *metrics.Document) {
			d.Metrics["http_reqs"] = metrics.Metric{Type: metrics.TypeCounter, Values: map[string]float64{"count": 1e9, "rate": 1e8}}
		}, "histogram"},
		{"a negative count", func(d *metrics.Document) {
			d.Metrics["http_reqs"] = metrics.Metric{Type: metrics.TypeCounter, Values: map[string]float64{"count": -2, "rate": -0.2}}
		}, "http_reqs"},
		{"no duration", func(d *metrics.Document) { d.State.TestRunDurationMs = 0 }, "testRunDurationMs"},
	} {
		d := good()
		tt.edit(d)
		if code, msg := put(t, base+"/results/0", encodeDoc(t, d)); code != http.StatusBadRequest || !strings.Contains(msg, tt.says) {
			t.Errorf("%s: %d %q, want 400 naming %s", tt.name, code, msg, tt.says)
		}
	}
	if code, msg := put(t, base+"/results/0", encodeDoc(t, good())); code != http.StatusNoContent {
		t.Errorf("the consistent document: %d %q", code, msg)
	}
}

// TestReceiveBoundsUploads: beyond MaxUploads at once a PUT is 503 (the
// sender retries), and documents beyond MaxHeld bytes in all are 413.
func TestReceiveBoundsUploads(t *testing.T) {
	doc := encodeDoc(t, partDoc(t, "0:1/4", time.Now(), []time.Duration{time.Millisecond}, nil))
	base, _ := receiving(t, ReceiveOptions{Expect: 4, MaxUploads: 1, MaxHeld: int64(len(doc)) + 10})
	// One upload that sends its head and 10 bytes, then holds the rest.
	held, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(held, "PUT /results/3 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s", len(doc), doc[:10])
	deadline := time.Now().Add(5 * time.Second)
	var code int
	var msg string
	for time.Now().Before(deadline) {
		if code, msg = put(t, base+"/results/0", doc); code == http.StatusServiceUnavailable {
			break
		}
		time.Sleep(5 * time.Millisecond) // until the held upload has its slot
	}
	if code != http.StatusServiceUnavailable {
		t.Errorf("a second upload at once: %d %q, want 503", code, msg)
	}
	held.Close() // the held upload fails: its slot and reservation go
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		code, msg = put(t, base+"/results/0", doc)
		if code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			break // until the server has seen the held upload fail
		}
	}
	if code != http.StatusNoContent {
		t.Fatalf("the first document: %d %q", code, msg)
	}
	doc1 := encodeDoc(t, partDoc(t, "1/4:1/2", time.Now(), []time.Duration{time.Millisecond}, nil))
	if code, msg := put(t, base+"/results/1", doc1); code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "held") {
		t.Errorf("a document beyond MaxHeld: %d %q, want 413", code, msg)
	}
}
