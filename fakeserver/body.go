package fakeserver

import (
	"compress/gzip"
	"context"
	"github.com/middlebench/middlebench/internal/pace"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
)

// bodyPattern is written over and over to make a body of any size. It is
// text made of a few hundred words, so gzip shrinks it the way it shrinks
// HTML or JSON (to roughly a third), not to nothing and not not at all.
var bodyPattern = makePattern(64 * 1024)

func makePattern(n int) []byte {
	r := rand.New(rand.NewPCG(2024, 1))
	words := make([][]byte, 400)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		words[i] = w
	}
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		if r.IntN(12) == 0 {
			b = append(b, '\n')
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

// countingWriter counts the bytes that reach the connection and pays the
// write cap for them, piece by piece.
type countingWriter struct {
	ctx context.Context
	w   http.ResponseWriter
	cap *pace.Bytes
	n   *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k := c.cap.Piece(len(p))
		if _, err := c.cap.Wait(c.ctx, k); err != nil {
			return written, err
		}
		m, err := c.w.Write(p[:k])
		written += m
		c.n.Add(int64(m))
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}

// newGzipPool returns a pool of writers at BestSpeed (nginx's default
// gzip_comp_level 1): a server compresses on the request path.
func newGzipPool() *sync.Pool {
	return &sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // the level is valid
		return w
	}}
}

// writeBody writes size bytes of the pattern to w, gzipped when zp is set.
func writeBody(w io.Writer, size int64, zp *sync.Pool) error {
	if zp != nil {
		zw := zp.Get().(*gzip.Writer)
		zw.Reset(w)
		defer zp.Put(zw)
		if err := writePattern(zw, size); err != nil {
			return err
		}
		return zw.Close()
	}
	return writePattern(w, size)
}

func writePattern(w io.Writer, size int64) error {
	for size > 0 {
		k := min(size, int64(len(bodyPattern)))
		if _, err := w.Write(bodyPattern[:k]); err != nil {
			return err
		}
		size -= k
	}
	return nil
}
