package fakeserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// statusClientGone is recorded (never sent) when the client left before
// its answer: nginx's 499.
const statusClientGone = 499

// bodyError sorts an error reading a request body: the client left (its
// connection ended or was reset mid-body, or its context ended: 499,
// nothing to answer), was too slow (the read timeout: 408), sent too much
// (413), or sent a body whose framing is broken, such as a chunk size of
// "zz" (400: the client is still there and must hear why).
func bodyError(r *http.Request, err error) (status int, msg string) {
	var (
		ne      net.Error
		tooBig  *http.MaxBytesError
		netErr  *net.OpError
		timeout = errors.As(err, &ne) && ne.Timeout()
	)
	switch {
	case timeout:
		return http.StatusRequestTimeout, "request body not received within the read timeout"
	case r.Context().Err() != nil, errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.As(err, &netErr):
		return statusClientGone, ""
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, err.Error()
	default:
		return http.StatusBadRequest, fmt.Sprintf("bad request body: %v", err)
	}
}
