package wire

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"
)

// watchdogBound is how long a test may hold a wire (the longest takes well
// under a minute, even under -race on a loaded machine): past it the test
// is hung, and go test's own -timeout would print this process's stacks
// only, and only after minutes, without the line process's.
const watchdogBound = 3 * time.Minute

// watchdog fails the test binary if the test still holds w after bound:
// it first writes to stderr (the test log) this process's goroutines and
// the line process's, asked for with SIGQUIT (Go prints every goroutine's
// stack to stderr and exits), so that a hang can be read after the fact.
// The returned stop disarms it.
func watchdog(t testing.TB, w *Wire, bound time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-time.After(bound):
		}
		fmt.Fprint(os.Stderr, hangReport(t.Name(), bound, w))
		panic(fmt.Sprintf("watchdog: %s still held its wire after %v (stacks above)", t.Name(), bound))
	}()
	return func() { close(done) }
}

// hangReport is what the watchdog writes: this process's goroutines, then
// the line process's stacks (which ends it).
func hangReport(test string, bound time.Duration, w *Wire) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n=== watchdog: %s overran %v; this process's goroutines:\n", test, bound)
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	fmt.Fprintf(&b, "\n=== watchdog: the line process's stacks:\n%s\n", lineStacks(w, 10*time.Second))
	return b.String()
}

// lineStacks sends SIGQUIT to w's line process and returns what it wrote
// to stderr by the time it is gone and its stderr has stopped growing, or
// by within.
func lineStacks(w *Wire, within time.Duration) string {
	r := w.remote
	if r == nil {
		return "(the line runs in this process: its goroutines are above)"
	}
	if err := r.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		return fmt.Sprintf("(SIGQUIT: %v) %s", err, r.stderr.String())
	}
	deadline := time.After(within)
	select {
	case <-r.done: // its control socket closed: the child has exited
	case <-deadline:
		return "(still running after SIGQUIT) " + r.stderr.String()
	}
	last := -1
	for tick := time.NewTicker(100 * time.Millisecond); ; {
		select {
		case <-tick.C:
		case <-deadline:
			tick.Stop()
			return r.stderr.String()
		}
		out := r.stderr.String()
		if len(out) == last {
			tick.Stop()
			return out
		}
		last = len(out)
	}
}

// TestWatchdogReportsBothProcesses: the report a hang would leave names
// this process's goroutines and the line process's (its release loop), so
// the stacks of a hung wire test can be read from its log.
func TestWatchdogReportsBothProcesses(t *testing.T) {
	w, err := Start(t.Context(), Config{}, Options{})
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("skipping the real wire: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if w.remote == nil {
		_ = w.Close()
		t.Skip("skipping: the line runs in this process (no line process to ask)")
	}
	report := hangReport(t.Name(), time.Second, w)
	// The child has exited on SIGQUIT: its close reports that, as it should.
	_ = w.Close()
	for _, want := range []string{"TestWatchdogReportsBothProcesses", "SIGQUIT", "wire.(*line).release", "wire.(*line).read"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if i := strings.Index(report, "the line process's stacks"); i < 0 || !strings.Contains(report[i:], "wire.(*line).release") {
		t.Errorf("the line process's part lacks its release loop:\n%s", report)
	}
}
