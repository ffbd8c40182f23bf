package h1loop

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestChunkScannerTable: where a chunked body ends, what is malformed,
// and bytes after the end left alone, each body fed whole and a byte at
// a time.
func TestChunkScannerTable(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		n        int // bytes of in that belong to the body (malformed: that go on before the fault)
		done     bool
		bad      bool
		data     int64
	}{
		{"one chunk", "5\r\nhello\r\n0\r\n\r\n", 15, true, false, 5},
		{"two chunks and an extension", "2;x=y\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n", 7 + 4 + 3 + 5 + 3 + 2, true, false, 5},
		{"hex size, spaces before the CRLF", "A \t\r\n0123456789\r\n0\r\n\r\n", 22, true, false, 10},
		{"trailers", "1\r\na\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n", 3 + 3 + 3 + 8 + 8 + 2, true, false, 1},
		{"bytes after the end", "0\r\n\r\nHTTP/1.1", 5, true, false, 0},
		{"not yet ended", "5\r\nhel", 6, false, false, 3},
		{"size without a digit", "\r\nhello\r\n0\r\n\r\n", 0, false, true, 0},
		{"size not hex", "zz\r\n", 0, false, true, 0},
		{"a bad size after a chunk", "3\r\nabc\r\nzz\r\n", 8, false, true, 3},
		{"size line ended by LF alone", "5\nhello\r\n0\r\n\r\n", 0, false, true, 0},
		{"data not followed by CRLF", "5\r\nhelloXX0\r\n\r\n", 8, false, true, 5},
		{"last line LF alone", "0\r\n\n", 4, false, true, 0},
		{"17 digits", "00000000000000001\r\na\r\n0\r\n\r\n", 0, false, true, 0},
		{"a bare CR in a size line", "5;e\rx\r\nhello\r\n0\r\n\r\n", 0, false, true, 0}, // RFC 9112 §2.2
	} {
		for _, step := range []int{len(tt.in), 1} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, step), func(t *testing.T) {
				n, done, err, s := scanInReads(tt.in, func(int) int { return step })
				if tt.bad {
					if err == nil || n != tt.n {
						t.Fatalf("scanned %d bytes, done %v (%v): want malformed after %d", n, done, err, tt.n)
					}
					return
				}
				if err != nil || n != tt.n || done != tt.done || s.data != tt.data {
					t.Fatalf("n %d done %v data %d (%v), want %d %v %d", n, done, s.data, err, tt.n, tt.done, tt.data)
				}
			})
		}
	}
}

// TestChunkScannerAgreesWithCopyChunked: over 20,000 seeded bodies, valid
// and broken at a random byte, cut into random reads, the scanner ends
// where the lean forwarder's copyChunked ends, or fails where it fails,
// and passes on the bytes it passes on.
func TestChunkScannerAgreesWithCopyChunked(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 20000 {
		body := randomChunked(rng)
		if rng.IntN(3) == 0 { // break one byte
			b := []byte(body)
			b[rng.IntN(len(b))] = "\r\n;0aZ \t"[rng.IntN(8)]
			body = string(b)
		}
		in := body + "NEXT"
		// The reference: copyChunked over a reader of the same bytes.
		var written bytes.Buffer
		lw := &leanWriter{lc: &leanConn{bw: bufio.NewWriter(&written)}}
		br := bufio.NewReaderSize(strings.NewReader(in), 32<<10)
		_, refErr := copyChunked(lw, br)
		lw.lc.bw.Flush()
		refN := len(in) - br.Buffered()
		n, done, err, _ := scanInReads(in, func(int) int { return 1 + rng.IntN(16) })
		switch {
		case refErr != nil && err == nil && done:
			t.Fatalf("body %d %q: copyChunked failed (%v), the scanner ended at %d", i, in, refErr, n)
		case refErr == nil && (err != nil || !done || n != refN):
			t.Fatalf("body %d %q: copyChunked ended at %d, the scanner at %d done %v (%v)", i, in, refN, n, done, err)
		case n != written.Len():
			t.Fatalf("body %d %q: copyChunked passed %d bytes on (%v), the scanner %d (%v)", i, in, written.Len(), refErr, n, err)
		}
	}
}

// scanInReads scans in as the loop does: reads of next(offset) bytes
// each, what a scan leaves (a line not yet ended) given again with the
// next read. n counts the bytes scanned as the body's.
func scanInReads(in string, next func(int) int) (n int, done bool, err error, s chunkScanner) {
	var held []byte
	for off := 0; off < len(in) && !done && err == nil; {
		k := min(next(off), len(in)-off)
		held = append(held, in[off:off+k]...)
		off += k
		var m int
		m, done, err = s.scan(held)
		n += m
		held = held[m:]
	}
	return n, done, err, s
}

// randomChunked makes a valid chunked body: 0-3 chunks with or without
// extensions, then 0-2 trailers.
func randomChunked(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(4) {
		n := 1 + rng.IntN(20)
		fmt.Fprintf(&sb, "%x", n)
		if rng.IntN(3) == 0 {
			sb.WriteString(";ext=1")
		}
		sb.WriteString("\r\n")
		sb.WriteString(strings.Repeat("d", n))
		sb.WriteString("\r\n")
	}
	sb.WriteString("0\r\n")
	for j := range rng.IntN(3) {
		fmt.Fprintf(&sb, "X-T%d: v\r\n", j)
	}
	sb.WriteString("\r\n")
	return sb.String()
}
