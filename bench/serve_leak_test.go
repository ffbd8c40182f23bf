package bench

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/internal/leaktest"
)

// TestServeLeavesNothing: `run --serve-only` (Serve) ended by its context
// (Ctrl-C) after serving a request through its path leaves no goroutine
// and no descriptor behind.
func TestServeLeavesNothing(t *testing.T) {
	e, err := experiment.Load("../experiments/e0-full-summary.yaml", true)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{}}
	defer leaktest.Check(t)()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lineWriter{lines: make(chan string, 4)}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, e, "", out, true) }()
	var line string
	select {
	case line = <-out.lines:
	case err := <-done:
		t.Fatalf("Serve ended at once: %v", err)
	}
	entry := between(line, `"entry":"`, `"`)
	resp, err := c.Get(entry + "/")
	if err != nil {
		t.Fatalf("through the served path %s: %v", entry, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.CloseIdleConnections()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func between(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(rest, to)
	return v
}

// lineWriter hands each written line to lines.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	for {
		s := w.buf.String()
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return len(p), nil
		}
		select {
		case w.lines <- s[:i]:
		default:
		}
		w.buf.Reset()
		w.buf.WriteString(s[i+1:])
	}
}
