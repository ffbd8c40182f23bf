package upstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Transport forwards an HTTP box's request to the next hop from
// the handler's own goroutine: it takes an idle keep-alive connection (or
// dials one), writes the request, and reads the response head itself.
// http.Transport hands each request to a writer and a reader goroutine of
// the connection and meets them over channels; doing it in place makes an
// HTTP box faster (the figures are in the commit history), with the same
// one-connection-per-request keep-alive.
//
// Requests that upgrade the connection (WebSocket) go to fallback, an
// http.Transport, whose 101 responses ReverseProxy knows how to splice.
type Transport struct {
	addr     string
	tls      *tls.Config // nil for plain HTTP
	dialer   net.Dialer
	idle     chan *Conn
	fallback *http.Transport
	// IdleLimit: a connection idle longer is closed, not reused
	// (IdleTimeout; a field so that tests can shorten it, atomic because
	// they do while the box runs).
	IdleLimit AtomicDuration
	// HeaderTimeout: how long the next hop may take to begin its answer
	// once the request is written (0: no limit).
	HeaderTimeout time.Duration
	sweeping      sync.Once
	stop          chan struct{}
	stopOnce      sync.Once
}

// IdleTimeout: a connection idle longer is closed rather than reused, well
// before the idle timeouts of common servers (nginx 75 s, Go's default none,
// Node 5 s is shorter: that one is caught by the retry in RoundTrip).
const IdleTimeout = 30 * time.Second

// NewTransport makes a transport to next (https: over TLS with tlsCfg)
// that keeps up to maxIdle idle connections and sends upgrades through
// fallback.
func NewTransport(next *url.URL, tlsCfg *tls.Config, maxIdle int, fallback *http.Transport) *Transport {
	t := &Transport{
		addr:     HostPort(next),
		dialer:   net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		idle:     make(chan *Conn, maxIdle),
		fallback: fallback,
		stop:     make(chan struct{}),
	}
	t.IdleLimit.Store(IdleTimeout)
	if next.Scheme == "https" {
		t.tls = tlsCfg.Clone()
		if t.tls == nil {
			t.tls = &tls.Config{}
		}
		if t.tls.ServerName == "" {
			t.tls.ServerName = next.Hostname()
		}
	}
	return t
}

// RoundTrip implements http.RoundTripper. A reused connection the next hop
// has closed meanwhile fails before any response byte arrives; a request
// without a body is then sent again on a new connection, as http.Transport
// does. One with a body cannot be replayed and fails (502).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Upgrade") != "" {
		return t.fallback.RoundTrip(req)
	}
	replayable := req.Body == nil || req.Body == http.NoBody
	for {
		c, reused, err := t.Get(req.Context())
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(c, req)
		if err == nil {
			return resp, nil
		}
		c.Close()
		var ne net.Error
		if !reused || !replayable || req.Context().Err() != nil || errors.As(err, &ne) && ne.Timeout() {
			return nil, err // a next hop that timed out is not asked again
		}
	}
}

// Get returns an idle connection young enough to trust, or a new one.
func (t *Transport) Get(ctx context.Context) (c *Conn, reused bool, err error) {
	for {
		select {
		case c := <-t.idle:
			if time.Since(c.idleSince) >= t.IdleLimit.Load() {
				c.Close()
				continue
			}
			return c, true, nil
		default:
			c, err := t.dial(ctx)
			return c, false, err
		}
	}
}

func (t *Transport) dial(ctx context.Context) (*Conn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err
	}
	if t.tls != nil {
		tc := tls.Client(nc, t.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := &Conn{Conn: nc, W: bufio.NewWriterSize(nc, 32<<10), lazy: t.tls == nil}
	c.R = bufio.NewReaderSize(c, 32<<10)
	return c, nil
}

// Put keeps a connection whose response was read to its end, or closes it
// when the idle pool is full, or when it holds bytes beyond that response:
// the next hop sent more than it answered, and those bytes would be read
// as the answer to the next request on it (net/http's Transport closes
// such a connection too; the sweep found them only a second later).
func (t *Transport) Put(c *Conn) {
	if c.R.Buffered() > 0 {
		c.Close()
		return
	}
	t.sweeping.Do(func() { go t.sweep() })
	c.idleSince = time.Now()
	select {
	case t.idle <- c:
	default:
		c.Close()
	}
}

// Close stops the sweeper and closes the idle connections.
func (t *Transport) Close() {
	t.stopOnce.Do(func() { close(t.stop) })
	t.sweeping.Do(func() {}) // no sweeper starts after close
	t.CloseIdleConnections()
}

// CloseIdleConnections closes the pool's connections (and the fallback's).
func (t *Transport) CloseIdleConnections() {
	t.fallback.CloseIdleConnections()
	for {
		select {
		case c := <-t.idle:
			c.Close()
		default:
			return
		}
	}
}

// exchange writes req on c and reads the response head; the body is read
// by the caller through Body, which gives c back at its end. The
// request's context, when it ends, interrupts both by expiring c's
// deadline.
func (t *Transport) exchange(c *Conn, req *http.Request) (*http.Response, error) {
	stop := context.AfterFunc(req.Context(), c.Interrupt)
	fail := func(err error) (*http.Response, error) {
		stop()
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, err
	}
	if err := req.Write(c.W); err != nil {
		return fail(err)
	}
	if err := c.W.Flush(); err != nil {
		return fail(err)
	}
	if t.HeaderTimeout > 0 {
		c.SetReadDue(time.Now().Add(t.HeaderTimeout))
	}
	for {
		resp, err := http.ReadResponse(c.R, req)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode >= 100 && resp.StatusCode <= 199 {
			continue // 100 Continue, 103 Early Hints: the final answer follows
		}
		if t.HeaderTimeout > 0 {
			c.SetReadDue(time.Time{}) // the body takes as long as it takes
			if req.Context().Err() != nil {
				c.Interrupt() // the context ended meanwhile: keep its interruption
			}
		}
		resp.Body = &Body{ReadCloser: resp.Body, c: c, t: t, stop: stop, reuse: !resp.Close && !req.Close}
		return resp, nil
	}
}

// AtomicDuration is a time.Duration read and written atomically.
type AtomicDuration struct{ v atomic.Int64 }

// Load reads d.
func (d *AtomicDuration) Load() time.Duration { return time.Duration(d.v.Load()) }

// Store sets d to v.
func (d *AtomicDuration) Store(v time.Duration) { d.v.Store(int64(v)) }

// HostPort is u's host:port, the scheme's port when u has none.
func HostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
