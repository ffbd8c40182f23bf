// Package fuzztest holds what the fuzz targets share: a bound on the time
// one input may take, since Go's fuzzer finds panics but waits forever on
// a hang.
package fuzztest

import (
	"fmt"
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
