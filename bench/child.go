package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/middlebench/middlebench/bench/experiment"
)

// childEnv carries a serving child's orders: the harness re-executes its
// own binary with it set, so the child needs no command line of its own
// (and a test binary can be a child: see ServeChild).
const childEnv = "MIDDLEBENCH_HARNESS_CHILD"

// childSpec is what a serving child serves: one run of one experiment.
type childSpec struct {
	File  string `json:"file"`
	Run   string `json:"run"`
	Quick bool   `json:"quick"`
}

func (s childSpec) env() string {
	b, _ := json.Marshal(s) // plain strings and a bool
	return childEnv + "=" + string(b)
}

// ServeChild makes this process the serving child (or a generator child:
// generators.go) the harness asked for,
// when it is one: it serves the run's server and path, prints where (one
// JSON line on stdout) and stops when stdin closes. It reports whether the
// process was a child; a program that runs experiments with isolate calls
// it first thing in main (and a test binary in TestMain).
func ServeChild(ctx context.Context, stdin io.Reader, stdout io.Writer) (bool, error) {
	if ok, err := runGeneratorChild(ctx, stdin, stdout); ok {
		return true, err
	}
	raw, ok := os.LookupEnv(childEnv)
	if !ok {
		return false, nil
	}
	var s childSpec
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return true, fmt.Errorf("%s: %w", childEnv, err)
	}
	e, err := experiment.Load(s.File, s.Quick)
	if err != nil {
		return true, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, stdin); cancel() }()
	return true, Serve(ctx, e, s.Run, stdout, true)
}
