package diagnose

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Ctrl-C while reading a long stream: what was read so far is returned
// with the context's error, and Run prints it.
func TestCancelledReadReturnsWhatWasRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "points.json")
	writeStream(t, p, 100_000, []int{5, 10})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err := Reader{}.ReadFile(ctx, p)
	if !errors.Is(err, context.Canceled) || o == nil || o.Requests == 0 || o.Requests >= 100_000/14 {
		t.Fatalf("err %v, observation %v", err, o != nil)
	}
	if !strings.Contains(strings.Join(o.Notes, " "), "interrupted after 4096 lines") {
		t.Errorf("notes %q", o.Notes)
	}
	var out strings.Builder
	err = Run(ctx, Options{Files: []string{p}, ServerCount: -1, Out: &out})
	if !errors.Is(err, context.Canceled) || !strings.Contains(out.String(), "interrupted after") {
		t.Errorf("Run: %v\n%s", err, out.String())
	}
}
