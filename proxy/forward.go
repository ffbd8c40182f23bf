package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// acceptLoop accepts the box's connections and serves each on its own
// goroutine: forward (bytes) or serveLean (HTTP).
func (b *Box) acceptLoop(serve func(net.Conn)) {
	defer b.wg.Done()
	var backoff time.Duration
	for {
		c, err := b.wrapped.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and friends: back off as net/http does, bounded.
			b.acceptErrors.Add(1)
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !b.track(c) {
			c.Close()
			return
		}
		b.wg.Add(1)
		go serve(c)
	}
}

func (b *Box) track(c net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.conns[c] = struct{}{}
	return true
}

func (b *Box) untrack(c net.Conn) {
	b.mu.Lock()
	delete(b.conns, c)
	b.mu.Unlock()
}

// forward copies bytes both ways between a client connection and a new
// connection to the next hop, half-closing each side as the other ends.
func (b *Box) forward(c net.Conn) {
	defer b.wg.Done()
	defer b.untrack(c)
	defer c.Close()
	up, err := b.connectNext(c)
	if err != nil {
		var hs *handshakeFailed
		if !errors.As(err, &hs) { // a failed handshake is the TLS stage's to count
			// Without parsing HTTP there is no 502 to send: the client sees
			// its connection closed, as behind a TCP proxy whose backend is down.
			b.upstreamErrors.Add(1)
			b.log.Printf("conn %d: next hop %s: %v", connID(c), b.next.Host, err)
		}
		return
	}
	defer up.Close()
	client := unwrapPlain(c) // the socket itself when no stage wrapped it: splice(2)
	if done, ok := b.relay.Carry(client, up, func(err error) { b.nextHopReset(c, err) }); ok {
		<-done // c, still open, holds the box's count of active connections
		return
	}
	// half copies one way; at its end it passes on what ended it, through
	// the stages (connend.go): an EOF as a half-close, a failed read as a
	// reset. A failed write closes both sides, so that the other way ends too.
	half := func(dst, src net.Conn, count *atomic.Int64, fromNextHop bool) {
		n, readFailed, err := copyConn(dst, src)
		count.Add(n)
		switch {
		case err == nil:
			closeWrite(dst)
		case readFailed:
			if fromNextHop {
				b.nextHopReset(c, err)
			}
			abortConn(dst)
			src.Close()
		default:
			c.Close()
			up.Close()
		}
	}
	done := make(chan struct{})
	go func() {
		half(up, client, &b.bytesUp, false)
		close(done)
	}()
	half(client, up, &b.bytesDown, true)
	<-done
}

// nextHopReset counts and records a byte box's next hop that reset the
// connection of client connection c: the client is reset in turn.
func (b *Box) nextHopReset(c net.Conn, err error) {
	b.upstreamCuts.Add(1)
	b.ledger.add(LedgerEntry{Time: time.Now(), Box: b.name, Stage: "box", Conn: connID(c), Action: ActCut,
		Note: fmt.Sprintf("next hop %s: %v; the client's connection reset", b.next.Host, err)})
}

// connectNext dials the next hop for client connection c. When a stage
// terminates TLS on c, its handshake runs meanwhile, as a terminator's
// does (a server first, it answers the ClientHello without waiting for its
// backend): dialed first, the dial — a quarter of a millisecond on
// loopback, milliseconds on a loaded machine, a retransmitted SYN's second
// for a backend with a full backlog — was added to the client's
// tls_handshaking, and it is done by the time the client's first bytes
// come, one round trip later. The handshake completes even when the dial
// fails (the client then sees its connection closed, as before); when the
// handshake fails the dial is called off.
func (b *Box) connectNext(c net.Conn) (net.Conn, error) {
	h := pendingHandshake(c)
	if h == nil {
		return b.dialNext(context.Background())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type dialed struct {
		conn net.Conn
		err  error
	}
	done := make(chan dialed, 1)
	go func() {
		up, err := b.dialNext(ctx)
		done <- dialed{up, err}
	}()
	if err := h.handshake(); err != nil {
		cancel()
		if d := <-done; d.conn != nil {
			d.conn.Close()
		}
		return nil, &handshakeFailed{err}
	}
	d := <-done
	return d.conn, d.err
}

// handshakeFailed is a client's handshake that failed in connectNext.
type handshakeFailed struct{ err error }

func (e *handshakeFailed) Error() string { return "handshake: " + e.err.Error() }
func (e *handshakeFailed) Unwrap() error { return e.err }

// dialNext connects to the next hop, speaking TLS when it does.
func (b *Box) dialNext(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: 10 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", upstream.HostPort(b.next))
	if err != nil {
		return nil, err
	}
	if b.next.Scheme != "https" || b.lay.certs == nil {
		return conn, nil // plain, or the client's TLS passing through untouched
	}
	tc := tls.Client(conn, b.nextTLS)
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
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

// writePieces writes p to w in pieces of the size next grants (a stage's
// cap or budget; next's error ends the write), adding what is written to
// count.
func writePieces(w io.Writer, p []byte, count *atomic.Int64, next func(want int) (int, error)) (int, error) {
	written := 0
	for len(p) > 0 {
		k, err := next(len(p))
		if err != nil {
			return written, err
		}
		n, err := w.Write(p[:k])
		written += n
		count.Add(int64(n))
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}

// quiet turns the errors of a connection closed by the other copy into
// an ordinary end.
func quiet(err error) error {
	if err == nil || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func unwrapPlain(c net.Conn) net.Conn {
	if tc, ok := c.(*trackedConn); ok {
		return tc.Conn
	}
	return c
}
