package load

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// lineWriter hands its writer complete lines only, in chunks of about
// 256 KiB: a reader of a stream cut at any moment (kill -9) finds whole
// lines, at worst without the last chunk — or with its first pages only,
// since the kernel ends a file write between pages once SIGKILL is
// pending; the analyzer reads such a cut last line as what a killed run
// leaves.
type lineWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const lineChunk = 256 << 10

func newLineWriter(w io.Writer) *lineWriter {
	return &lineWriter{w: w, buf: make([]byte, 0, lineChunk+4096)}
}

// Write buffers p; it never fails (the first error is kept for Flush).
func (l *lineWriter) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if len(l.buf) >= lineChunk {
		if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
			l.emit(l.buf[:i+1])
			l.buf = append(l.buf[:0], l.buf[i+1:]...)
		}
	}
	return len(p), nil
}

func (l *lineWriter) emit(b []byte) {
	if l.err != nil || len(b) == 0 {
		return
	}
	if _, err := l.w.Write(b); err != nil {
		l.err = err
	}
}

// Flush writes what is buffered (the last line included) and reports the
// first error of the stream.
func (l *lineWriter) Flush() error {
	l.emit(l.buf)
	l.buf = l.buf[:0]
	return l.err
}

// OpenStream returns the writer of a k6 --out stream (json or csv): "-"
// is stdout, left open; a path is created when the first chunk of data
// is ready — so a run that fails before measuring anything leaves a
// previous file as it was — and gzipped when it ends in ".gz", as k6 does,
// each chunk flushed so the compressed stream ends on a whole line. Close
// creates the file if nothing was written, so a finished run always has one.
func OpenStream(path string, stdout io.Writer) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{stdout}, nil
	}
	if path == "" {
		return nil, fmt.Errorf("no file name")
	}
	// Fail before the run on a path that cannot be written, without
	// touching an existing file.
	dir := "."
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir = path[:i+1]
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s: the directory %s does not exist", path, dir)
	}
	return &streamFile{path: path, gzip: strings.HasSuffix(path, ".gz")}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

type streamFile struct {
	path string
	gzip bool
	f    *os.File
	gz   *gzip.Writer
}

func (s *streamFile) open() error {
	f, err := os.Create(s.path)
	if err != nil {
		return err
	}
	s.f = f
	if s.gzip {
		s.gz = gzip.NewWriter(f)
	}
	return nil
}

func (s *streamFile) Write(p []byte) (int, error) {
	if s.f == nil {
		if err := s.open(); err != nil {
			return 0, err
		}
	}
	if s.gz == nil {
		return s.f.Write(p)
	}
	n, err := s.gz.Write(p)
	if err == nil {
		err = s.gz.Flush()
	}
	return n, err
}

func (s *streamFile) Close() error {
	if s.f == nil {
		if err := s.open(); err != nil {
			return err
		}
	}
	var err error
	if s.gz != nil {
		err = s.gz.Close()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
