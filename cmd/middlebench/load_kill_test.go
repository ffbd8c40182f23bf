package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLoadKilledLeavesUsableFiles SIGKILLs `middlebench load
// --summary-export … --results … --out json=…` at 10 random moments: each
// summary file is the previous one (untouched) or complete valid JSON,
// and every complete line of the stream parses (or the previous stream is
// still whole, when the run was killed before it produced data); a line
// cut by the kill is read by the analyzer as a cut line.
func TestLoadKilledLeavesUsableFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it 10 times")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "middlebench")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server-Timing", "app;dur=0.1")
		w.Write([]byte("ok"))
	}))
	defer srv.Close()

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 10))
	t.Logf("seed %d", seed)
	const runFor = 2 * time.Second
	previous := []byte(`{"previous": true}` + "\n")
	export, results, stream := filepath.Join(dir, "export.json"), filepath.Join(dir, "results.json"), filepath.Join(dir, "points.ndjson")
	for i := range 10 {
		for _, f := range []string{export, results, stream} {
			if err := os.WriteFile(f, previous, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "load", "--vus", "2", "--duration", runFor.String(), "--quiet", "--no-summary",
			"--summary-export", export, "--results", results, "--out", "json="+stream, srv.URL)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// From the start to past the run's end (when the files are written,
		// or done).
		at := time.Duration(rng.Int64N(int64(runFor + 1500*time.Millisecond)))
		time.Sleep(at)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		for _, f := range []string{export, results} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Errorf("kill %d at %v: %s is gone: %v", i, at, filepath.Base(f), err)
				continue
			}
			var v map[string]any
			if !bytes.Equal(b, previous) && json.Unmarshal(b, &v) != nil {
				t.Errorf("kill %d at %v: %s is neither the previous file nor valid JSON (%d bytes)", i, at, filepath.Base(f), len(b))
			}
			if !bytes.Equal(b, previous) && v["metrics"] == nil {
				t.Errorf("kill %d at %v: %s has no metrics", i, at, filepath.Base(f))
			}
		}
		b, err := os.ReadFile(stream)
		if err != nil {
			t.Errorf("kill %d at %v: stream: %v", i, at, err)
			continue
		}
		lines := bytes.Split(b, []byte("\n"))
		complete := lines[:len(lines)-1] // after the last newline: a torn line, or nothing
		if tail := lines[len(lines)-1]; len(tail) != 0 {
			// The kernel stops a write to a file between pages once SIGKILL
			// is pending, so the last chunk can end inside a line: the
			// analyzer must read every whole line before it and say so.
			out, err := exec.Command(bin, "analyze", stream).CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("was cut")) {
				t.Errorf("kill %d at %v: the stream ends in a torn line of %d bytes and analyze (%v) does not read past it saying so:\n%s", i, at, len(tail), err, out)
			}
		}
		for n, l := range complete {
			if !json.Valid(l) {
				t.Errorf("kill %d at %v: stream line %d does not parse: %.80s", i, at, n+1, l)
				break
			}
		}
		t.Logf("kill %d at %v: export %s, stream %d lines", i, at, state(export, previous), len(complete))
	}
}

func state(path string, previous []byte) string {
	b, _ := os.ReadFile(path)
	if bytes.Equal(b, previous) {
		return "previous"
	}
	return "new"
}
