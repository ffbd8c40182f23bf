package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/wire"
)

// TestMain lets this test binary be the harness's serving child and a
// wire's delay line process, as middlebench's main does.
func TestMain(m *testing.M) {
	if line, err := wire.ServeLineProcess(); line {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	wire.EnableLineProcess()
	if child, err := ServeChild(context.Background(), os.Stdin, os.Stdout); child {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestIsolatedExperimentRunsUnderGoTest: the server of an isolated
// experiment runs in a child process (this binary, through ServeChild),
// and the harness reads the child's view of the requests it sent.
func TestIsolatedExperimentRunsUnderGoTest(t *testing.T) {
	src := `title: isolated
isolate: {}
server: {work: 2ms}
runs:
  - name: five requests
    direct: true
    load: {vus: 1, iterations: 5}
    expect:
      bands:
        - {metric: server requests, equals: "5"}
`
	x := replaySource(t, "isolated.yaml", src)
	if x.Err != nil || !x.Passed() {
		t.Fatalf("err %v, failures %q", x.Err, x.Failures())
	}
	r := x.Runs[0]
	if r.Result.Requests != 5 || r.Server.Requests != 5 || r.Pinned == "" {
		t.Errorf("engine %d requests, child's server %d, pinned %q: want 5, 5 and where it ran", r.Result.Requests, r.Server.Requests, r.Pinned)
	}
}

// TestUndoReturnsWhatItCouldNotUndo: a mask not restored and a target
// that did not stop are ErrTainted, not swallowed.
func TestUndoReturnsWhatItCouldNotUndo(t *testing.T) {
	err := undo(stuckTarget{}, func() error { return fmt.Errorf("EPERM") })
	if !errors.Is(err, ErrTainted) {
		t.Fatalf("undo: %v, want ErrTainted", err)
	}
	for _, want := range []string{"restoring the CPU affinity mask: EPERM", "stopping the server and path: did not stop"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if err := undo(stuckTarget{ok: true}, nil); err != nil {
		t.Errorf("nothing to undo: %v", err)
	}
}

// stuckTarget is a target whose close fails unless ok.
type stuckTarget struct {
	target
	ok bool
}

func (s stuckTarget) close() error {
	if s.ok {
		return nil
	}
	return errors.New("did not stop")
}

// replaySource replays the experiment YAML src, written to a file of that
// name, with a fresh Runner (a minute at most).
func replaySource(t *testing.T, name, src string) *record.ExperimentResult {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := experiment.Load(file, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	return (&Runner{}).Run(ctx, e)
}
