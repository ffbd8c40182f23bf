// Command middlebench runs the fake server, the middlebox proxies, the load
// engine, the analyzer and the experiment harness. Each sub-command lives in
// its own file and only wires flags to a library call.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/middlebench/middlebench/bench"
	"github.com/middlebench/middlebench/wire"
)

func main() {
	// A wire's delay line runs in a child of this binary (wire.Start).
	if line, err := wire.ServeLineProcess(); line {
		os.Exit(exitCode(err))
	}
	wire.EnableLineProcess()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The harness re-executes this binary to serve an isolated experiment.
	if child, err := bench.ServeChild(ctx, os.Stdin, os.Stdout); child {
		stop()
		os.Exit(exitCode(err))
	}
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

// exitError carries a specific exit status (k6 uses 99 for failed
// thresholds; analyze uses 2 for unreadable input).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "middlebench:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(os.Stderr, "middlebench:", err)
	return 1
}
