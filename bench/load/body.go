package load

import "io"

// bodyBlockSize is the size of the pattern a generated body repeats.
const bodyBlockSize = 32 << 10

// newBodyBlock returns the read-only pattern generated bodies repeat.
func newBodyBlock() []byte {
	b := make([]byte, bodyBlockSize)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return b
}

// sizedBody is a request body of n bytes generated from a shared read-only
// block: an 8 MiB upload costs this struct, not 8 MiB per request.
type sizedBody struct {
	block []byte
	n     int64 // bytes left
	off   int
}

func newSizedBody(block []byte, n int64) *sizedBody { return &sizedBody{block: block, n: n} }

func (b *sizedBody) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	total := 0
	for len(p) > 0 {
		c := copy(p, b.block[b.off:])
		b.off = (b.off + c) % len(b.block)
		p = p[c:]
		total += c
	}
	b.n -= int64(total)
	return total, nil
}

// WriteTo lets the transport skip its copy buffer.
func (b *sizedBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for b.n > 0 {
		chunk := b.block[b.off:]
		if int64(len(chunk)) > b.n {
			chunk = chunk[:b.n]
		}
		c, err := w.Write(chunk)
		total += int64(c)
		b.n -= int64(c)
		b.off = (b.off + c) % len(b.block)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (b *sizedBody) Close() error { return nil }
