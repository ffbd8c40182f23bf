package exchange

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// clientBody is a request body as the box reads it from its client: it
// remembers its first error, so that a failed forward can tell a client's
// fault from the next hop's (net/http hides the body's error behind an
// unexported type).
type clientBody struct {
	io.ReadCloser
	req *http.Request // its Trailer, filled by net/http at the body's end
	err atomic.Pointer[error]
}

func (c *clientBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	if err == io.EOF && c.req != nil {
		err = checkTrailer(c.req.Trailer)
		if err == nil {
			err = io.EOF
		}
	}
	if err != nil && err != io.EOF {
		c.err.CompareAndSwap(nil, &err)
	}
	return n, err
}

// checkTrailer refuses a request trailer that names a framing field (RFC
// 9110 §6.5.1; net/http's server refuses such a declared Trailer, 400):
// the client's error, answered 400, where forwarding it failed as the next
// hop's (502).
func checkTrailer(tr http.Header) error {
	for _, k := range [...]string{"Content-Length", "Transfer-Encoding", "Trailer", "Host"} {
		if _, ok := tr[k]; ok {
			return fmt.Errorf("a trailer field named %s", k)
		}
	}
	return nil
}

func (c *clientBody) failure() error {
	if c == nil {
		return nil
	}
	if e := c.err.Load(); e != nil {
		return *e
	}
	return nil
}

// WatchBody wraps r's body, if any, and keeps it on the exchange: a
// failed forward tells the client's fault from the next hop's by it
// (BodyErr).
func (ex *Exchange) WatchBody(r *http.Request) {
	if r.Body != nil && r.Body != http.NoBody {
		ex.body = &clientBody{ReadCloser: r.Body, req: r}
		r.Body = ex.body
	}
}

// BodyErr is the first error reading the client's body returned; nil
// without a body or an error.
func (ex *Exchange) BodyErr() error { return ex.body.failure() }
