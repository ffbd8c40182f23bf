package upstream

import "io"

// Body returns its connection to the pool once read to the end,
// and closes it if the reader gives up before.
type Body struct {
	io.ReadCloser
	c     *Conn
	t     *Transport
	stop  func() bool
	reuse bool
}

// NewBody is resp's body read from c: c goes back to t's pool at its end
// when reuse, and stop (the context's watch on c) is stopped.
func NewBody(rc io.ReadCloser, c *Conn, t *Transport, stop func() bool, reuse bool) *Body {
	return &Body{ReadCloser: rc, c: c, t: t, stop: stop, reuse: reuse}
}

func (b *Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && b.c != nil {
		// stop reports false when the context already expired the deadline.
		if b.stop() && b.reuse {
			b.t.Put(b.c)
		} else {
			b.c.Close()
		}
		b.c = nil
	}
	return n, err
}

func (b *Body) Close() error {
	if b.c != nil {
		b.stop()
		b.c.Close()
		b.c = nil
	}
	return nil
}
