// Package fuzztest holds what the fuzz targets share: a bound on the time
// one input may take, since Go's fuzzer finds panics but waits forever on
// a hang.
package fuzztest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
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
