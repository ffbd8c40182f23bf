// Package reqbody sorts the errors of reading a request body, for the fake
// server and the HTTP boxes alike: the client left, was too slow, sent too
// much, or sent a body whose framing is broken. Only the first is not
// answered.
package reqbody

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// StatusClientGone is recorded (never sent) when the client left before
// its answer: nginx's 499.
const StatusClientGone = 499

// Status sorts err, an error from reading a request body whose request
// context is ctx: the client left (its connection ended or was reset
// mid-body, or ctx ended: StatusClientGone, nothing to answer), was too
// slow (a read timeout: 408), sent too much (413), or sent a body whose
// framing is broken, such as a chunk size of "zz" (400: the client is
// still there and must hear why). msg is the answer's body.
func Status(ctx context.Context, err error) (status int, msg string) {
	var (
		ne     net.Error
		tooBig *http.MaxBytesError
		opErr  *net.OpError
	)
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return http.StatusRequestTimeout, "request body not received within the read timeout"
	case ctx.Err() != nil, errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.As(err, &opErr):
		return StatusClientGone, ""
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, err.Error()
	}
	return http.StatusBadRequest, fmt.Sprintf("bad request body: %v", err)
}
