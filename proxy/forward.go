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

	"github.com/middlebench/middlebench/proxy/internal/exchange"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// acceptLoop accepts the box's connections and serves each on its own
// goroutine: forward (bytes) or the HTTP engine's Serve (h1loop).
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
			b.log.Printf("conn %d: next hop %s: %v", exchange.ConnID(c), b.next.Host, err)
		}
		return
	}
	defer up.Close()
	b.pairs.Carry(c, unwrapPlain(c), up, func(err error) { b.nextHopReset(c, err) })
}

// nextHopReset counts and records a byte box's next hop that reset the
// connection of client connection c: the client is reset in turn.
func (b *Box) nextHopReset(c net.Conn, err error) {
	b.upstreamCuts.Add(1)
	b.ledger.add(LedgerEntry{Time: time.Now(), Box: b.name, Stage: "box", Conn: exchange.ConnID(c), Action: ActCut,
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

func unwrapPlain(c net.Conn) net.Conn {
	if tc, ok := c.(*exchange.Tracked); ok {
		return tc.Conn
	}
	return c
}
