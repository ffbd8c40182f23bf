// Package fuzztest holds what the fuzz targets share: a bound on the time
// one input may take, since Go's fuzzer finds panics but waits forever on
// a hang.
package fuzztest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Bound makes a hang a crash: unless stop is called within d, it panics
// with input in the message, which ends the fuzzing worker, so the fuzzer
// saves the input under testdata/fuzz/ like any crasher. Use it as
// `defer fuzztest.Bound(d, input)()`.
func Bound(d time.Duration, input any) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			panic(fmt.Sprintf("one input took more than %v: %q", d, input))
		}
	}()
	return func() { close(done) }
}

// WholeRequest tells whether Go's request parser reads in as one request
// whose body reads to its end: such an input must get an answer.
func WholeRequest(in []byte) bool {
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(in)))
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, r.Body)
	return err == nil
}

// Exchange writes in on a new connection to addr, half-closes it (the
// input ends there) and reads until the peer closes; it fails t when no
// end comes within 8 s. It returns what came back, the whole HTTP
// responses that holds (bodies read), and the error that stopped reading
// responses.
func Exchange(t testing.TB, addr string, in []byte) (out []byte, resps []*http.Response, err error) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(8 * time.Second))
	c.Write(in)
	c.(*net.TCPConn).CloseWrite()
	out, err = io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("no end within 8 s; read %q", out)
	}
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return out, resps, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		resps = append(resps, resp)
	}
}
