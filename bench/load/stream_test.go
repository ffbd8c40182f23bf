package load

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamIsLazyAndWhole: a stream file is not touched before its first
// chunk (a previous file survives a run that measured nothing yet), the
// writer receives whole lines only, and a gzipped stream cut after a chunk
// decompresses to whole lines.
func TestStreamIsLazyAndWhole(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"points.ndjson", "points.ndjson.gz"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("previous\n"), 0o644)
		w, err := OpenStream(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		lw := newLineWriter(w)
		line := strings.Repeat("x", 99) + "\n"
		lw.Write([]byte(line[:50])) // half a line, buffered
		if b, _ := os.ReadFile(path); string(b) != "previous\n" {
			t.Fatalf("%s: touched before any chunk: %q", name, b)
		}
		for range lineChunk/len(line) + 1 {
			lw.Write([]byte(line[50:]))
			lw.Write([]byte(line[:50]))
		}
		// One chunk went out; read it as a killed run would leave it.
		b, _ := os.ReadFile(path)
		var r io.Reader = bytes.NewReader(b)
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(r)
			if err != nil {
				t.Fatal(err)
			}
			r = zr
		}
		got, _ := io.ReadAll(r) // an unterminated gzip stream ends in ErrUnexpectedEOF after the data
		if len(got) == 0 || !bytes.HasSuffix(got, []byte("\n")) || bytes.Count(got, []byte("\n")) != len(got)/len(line) {
			t.Errorf("%s: %d bytes after the first chunk, not whole lines", name, len(got))
		}
		if err := lw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// A run that wrote nothing still leaves its (empty) stream.
	path := filepath.Join(dir, "empty.ndjson")
	w, _ := OpenStream(path, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("no stream after a run without data: %v", err)
	}
	if _, err := OpenStream(filepath.Join(dir, "no/such/dir/p.ndjson"), nil); err == nil {
		t.Error("a stream in a missing directory was accepted before the run")
	}
}
