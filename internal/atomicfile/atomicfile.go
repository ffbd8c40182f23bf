// Package atomicfile writes a file so that a reader only ever sees the old
// file or the complete new one: the bytes go to a temporary file in the same
// directory, which is synced and renamed over the target when complete. A
// run killed half-way leaves the previous file untouched — never a 0-byte or
// half-written target — and its ".name.tmp-pPID-*" file, which the next
// write of the same name removes once no process PID is alive.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is a file being written under a temporary name. Commit makes it
// visible under its name; Abort (or a failed Commit) removes it. Calling
// Abort after Commit does nothing, so `defer f.Abort()` is always safe.
type File struct {
	*os.File
	target string
	done   bool
}

// Create starts writing path. Nothing appears under path until Commit.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStrays(dir, base)
	tmp, err := os.CreateTemp(dir, fmt.Sprintf(".%s.tmp-p%d-*", base, os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: tmp, target: path}, nil
}

// Commit flushes the data to disk and renames the file over its target.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	f.done = true
	tmp := f.File.Name()
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, f.target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// Abort drops what was written; the target keeps its previous content.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// Write writes the whole file from fill, atomically: if fill fails the
// target is left as it was and fill's error is returned.
func Write(path string, fill func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// removeStrays removes the temporary files of base that writers killed
// before Commit or Abort left in dir: those whose process is gone. One of
// a live writer (another process writing the same file now, or this one)
// stays; so does any whose writer cannot be told.
func removeStrays(dir, base string) {
	prefix := "." + base + ".tmp-p"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
