package forward

import (
	"errors"
	"io"
	"net"
	"sync/atomic"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/relay"
)

// Ends passes a connection's end on through its wrappers (the box's
// connection stages), in order with its bytes.
type Ends interface {
	CloseWrite(c net.Conn) // a half-close: what was read before it is written first
	Abort(c net.Conn)      // a reset
}

// Pairs carries a byte box's connection pairs: on the relay when it takes
// them, else with two copy goroutines each.
type Pairs struct {
	Relay    *relay.Relay
	Up, Down *atomic.Int64 // the box's byte counters: client to next hop, back
	Ends     Ends
}

// Carry copies bytes both ways between a client connection and its
// connection up to the next hop until both ways have ended, half-closing
// each side as the other ends; c is the client's connection as the box
// tracks it (closed when a write fails), client the one to read and write
// (the socket itself when no stage wrapped it: splice(2)). nextHopReset
// is told of a read from up that failed (a reset), passed on to the client.
func (p *Pairs) Carry(c, client, up net.Conn, nextHopReset func(error)) {
	if done, ok := p.Relay.Carry(client, up, nextHopReset); ok {
		<-done // c, still open, holds the box's count of active connections
		return
	}
	// half copies one way; at its end it passes on what ended it, through
	// the stages (Ends): an EOF as a half-close, a failed read as a
	// reset. A failed write closes both sides, so that the other way ends too.
	half := func(dst, src net.Conn, count *atomic.Int64, fromNextHop bool) {
		n, readFailed, err := copyConn(dst, src)
		count.Add(n)
		switch {
		case err == nil:
			p.Ends.CloseWrite(dst)
		case readFailed:
			if fromNextHop {
				nextHopReset(err)
			}
			p.Ends.Abort(dst)
			src.Close()
		default:
			c.Close()
			up.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		half(up, client, p.Up, false)
		close(done)
	}()
	half(client, up, p.Down, true)
	<-done
}

// copyConn copies src to dst through a pooled buffer, hiding dst's
// ReadFrom (which would allocate its own); readFailed: err is src's (a
// reset), not dst's. Between two sockets, once a read fills the whole
// buffer — a bulk transfer — the rest goes through io.Copy, which splices
// in the kernel (and then cannot tell whose error it is: readFailed is
// false). Not before: for small HTTP messages splice's two calls through a
// pipe cost more than a read and a write (the figures are in the commit
// history).
func copyConn(dst, src net.Conn) (n int64, readFailed bool, err error) {
	_, srcTCP := src.(*net.TCPConn)
	_, dstTCP := dst.(*net.TCPConn)
	bp := copybuf.Get()
	defer copybuf.Put(bp)
	buf := *bp
	if !srcTCP || !dstTCP {
		r := &readErrs{r: src}
		n, err := io.CopyBuffer(struct{ io.Writer }{dst}, r, buf)
		err = quiet(err)
		return n, err != nil && r.err != nil, err
	}
	var total int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			w, werr := dst.Write(buf[:n])
			total += int64(w)
			if werr != nil {
				return total, false, quiet(werr)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return total, false, nil
			}
			err = quiet(err)
			return total, err != nil, err
		}
		if n == len(buf) {
			m, err := io.Copy(dst, src)
			return total + m, false, quiet(err)
		}
	}
}

// readErrs remembers the error its reader's Read returned (EOF aside).
type readErrs struct {
	r   io.Reader
	err error
}

func (r *readErrs) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// quiet turns the errors of a connection closed by the other copy into
// an ordinary end.
func quiet(err error) error {
	if err == nil || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
