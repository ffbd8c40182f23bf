package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesOnlyWhenComplete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	assertContent(t, path, "old")
	assertOnlyFile(t, dir)

	if err := WriteBytes(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	assertContent(t, path, "new")
	assertOnlyFile(t, dir)
}

func TestCreateShowsNothingBeforeCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.json")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	io.WriteString(f, "{}")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("target exists before commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // after Commit: a no-op
	assertContent(t, path, "{}")
	if err := f.Commit(); err == nil {
		t.Fatal("second commit succeeded")
	}
}

func TestCreateInMissingDirectoryNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "x.json")
	_, err := Create(path)
	if err == nil {
		t.Fatal("created a file in a missing directory")
	}
	if got := err.Error(); !contains(got, path) {
		t.Fatalf("error %q does not name %s", got, path)
	}
}

func assertContent(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("%s = %q, want %q", path, b, want)
	}
}

func assertOnlyFile(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want only the target", names)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
