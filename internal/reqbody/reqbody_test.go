package reqbody

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
)

func TestStatus(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"body cut by the client", live, io.ErrUnexpectedEOF, StatusClientGone},
		{"connection reset", live, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, StatusClientGone},
		{"context ended", gone, errors.New("anything"), StatusClientGone},
		{"read timeout", live, fmt.Errorf("wrapped: %w", os.ErrDeadlineExceeded), http.StatusRequestTimeout},
		{"too large", live, &http.MaxBytesError{Limit: 10}, http.StatusRequestEntityTooLarge},
		{"bad chunk size", live, errors.New("invalid byte in chunk length"), http.StatusBadRequest},
	} {
		if got, _ := Status(tt.ctx, tt.err); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}
