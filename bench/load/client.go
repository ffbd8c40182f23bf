package load

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// ioCount counts the bytes a VU's connections move, TLS and headers
// included, as k6's netext.Dialer does for data_sent and data_received.
type ioCount struct{ sent, received atomic.Int64 }

// countingConn adds what passes through a connection to its VU's count.
type countingConn struct {
	net.Conn
	c *ioCount
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.c.received.Add(int64(n))
	}
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.c.sent.Add(int64(n))
	}
	return n, err
}

// dialFunc dials a VU's connections.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// vuDialer is how a VU dials, through net/http or the lean client: a
// net.Dialer with the request timeout and 30 s keep-alive, or dial (from
// Options.Dial) under the same timeout; either counts bytes into count.
func vuDialer(cfg *Config, count *ioCount, dial dialFunc) dialFunc {
	if dial == nil {
		dial = (&net.Dialer{Timeout: cfg.timeout(), KeepAlive: 30 * time.Second}).DialContext
	} else {
		inner := dial
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
			defer cancel()
			return inner(ctx, network, addr)
		}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, c: count}, nil
	}
}

// newTransport builds one VU's transport, configured as k6 configures a
// VU's: its own connection pool (one keep-alive connection per VU unless
// noConnectionReuse), no transparent compression (compression is asked and
// decoded by the engine, so receiving includes decompression), HTTP/2 when
// TLS offers it, no TLS session cache (each new connection does a full
// handshake, as k6's), and dial (vuDialer).
func newTransport(cfg *Config, dial dialFunc) *http.Transport {
	return &http.Transport{
		DialContext: dial,
		TLSClientConfig: &tls.Config{
			InsecureSkipVerify: cfg.InsecureSkipTLSVerify, //nolint:gosec // the user asked for it, as k6's option
			MinVersion:         tls.VersionTLS12,
		},
		ForceAttemptHTTP2:   true,
		DisableCompression:  true,
		DisableKeepAlives:   cfg.NoConnectionReuse,
		MaxIdleConns:        20,
		MaxIdleConnsPerHost: 6,
		IdleConnTimeout:     90 * time.Second,
	}
}
