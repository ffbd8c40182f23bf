package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/selfsigned"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// TLSConfig terminates TLS like a load balancer or TLS device and forwards
// plain HTTP (or bytes) to the next hop. The TCP connection is accepted at
// once; the handshake starts HandshakeDelay later (E1), while holding one
// of MaxConcurrentHandshakes slots (a terminator's capacity: beyond it,
// handshakes queue).
type TLSConfig struct {
	HandshakeDelay          units.Dist     `yaml:"handshakeDelay"`
	MaxConcurrentHandshakes int            `yaml:"maxConcurrentHandshakes"` // 0: unlimited
	Resumption              *bool          `yaml:"resumption"`              // session tickets (default on)
	MinVersion              string         `yaml:"minVersion"`              // "1.2" (default) or "1.3"
	MaxVersion              string         `yaml:"maxVersion"`              // "1.3" (default) or "1.2"
	Cert                    string         `yaml:"cert"`                    // PEM files; default an in-memory self-signed certificate
	Key                     string         `yaml:"key"`
	HandshakeTimeout        units.Duration `yaml:"handshakeTimeout"` // default 10s, queueing included
	// Curves are the key exchanges the box accepts (nginx's ssl_ecdh_curve;
	// tlscurves.go): default Go's, which agrees on the post-quantum hybrid
	// X25519MLKEM768 with every Go client (k6 too) and costs both ends about
	// 0.35 ms more CPU per handshake than [X25519].
	Curves []string `yaml:"curves"`
}

// Kind is "tls".
func (*TLSConfig) Kind() string { return "tls" }

func parseTLSVersion(field, s string, def uint16) (uint16, error) {
	switch s {
	case "":
		return def, nil
	case "1.2", "TLS1.2", "tls1.2":
		return tls.VersionTLS12, nil
	case "1.3", "TLS1.3", "tls1.3":
		return tls.VersionTLS13, nil
	}
	return 0, errField(field, "%q: want 1.2 or 1.3", s)
}

type tlsStage struct {
	bound
	cfg     TLSConfig
	tls     *tls.Config
	pool    *x509.CertPool
	slots   chan struct{}
	timeout time.Duration

	handshakes, resumed, failures, queued, tls12, tls13 atomic.Int64
	byCurve                                             map[tls.CurveID]*atomic.Int64 // handshakes by key exchange
}

func (c *TLSConfig) compile() (Stage, error) {
	lo, err := parseTLSVersion("minVersion", c.MinVersion, tls.VersionTLS12)
	if err != nil {
		return nil, err
	}
	hi, err := parseTLSVersion("maxVersion", c.MaxVersion, tls.VersionTLS13)
	if err != nil {
		return nil, err
	}
	if lo > hi {
		return nil, errField("minVersion", "%s is above maxVersion %s", c.MinVersion, c.MaxVersion)
	}
	if c.MaxConcurrentHandshakes < 0 {
		return nil, errField("maxConcurrentHandshakes", "must not be negative")
	}
	if (c.Cert == "") != (c.Key == "") {
		return nil, errField("cert", "cert and key go together")
	}
	curves, err := parseCurves(c.Curves, hi)
	if err != nil {
		return nil, err
	}
	s := &tlsStage{cfg: *c, timeout: c.HandshakeTimeout.D(), byCurve: map[tls.CurveID]*atomic.Int64{}}
	for _, k := range tlsCurves {
		s.byCurve[k.id] = new(atomic.Int64)
	}
	s.tls = &tls.Config{
		MinVersion:             lo,
		MaxVersion:             hi,
		SessionTicketsDisabled: c.Resumption != nil && !*c.Resumption,
		NextProtos:             []string{"http/1.1"},
		CurvePreferences:       curves,
	}
	if s.timeout == 0 {
		s.timeout = 10 * time.Second
	}
	if c.MaxConcurrentHandshakes > 0 {
		s.slots = make(chan struct{}, c.MaxConcurrentHandshakes)
	}
	return s, nil
}

// start loads the certificate (or makes one): work for a box that starts,
// not for validation.
func (s *tlsStage) start() error {
	var cert tls.Certificate
	var err error
	if s.cfg.Cert != "" {
		cert, err = tls.LoadX509KeyPair(s.cfg.Cert, s.cfg.Key)
		if err != nil {
			return errField("cert", "%v", err)
		}
		if cert.Leaf == nil && len(cert.Certificate) > 0 {
			cert.Leaf, _ = x509.ParseCertificate(cert.Certificate[0])
		}
	} else if cert, err = selfsigned.New(); err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	s.tls.Certificates = []tls.Certificate{cert}
	s.pool = selfsigned.Pool(cert)
	return nil
}

// CertPool is what the box's clients must trust.
func (s *tlsStage) CertPool() *x509.CertPool { return s.pool }

// extraCounts: besides handshakes by version, "kx.NAME" counts them by
// the key exchange agreed on (only those used).
func (s *tlsStage) extraCounts() map[string]int64 {
	m := map[string]int64{"handshakes": s.handshakes.Load(), "resumed": s.resumed.Load(), "failed": s.failures.Load(),
		"queued": s.queued.Load(), "tls1.2": s.tls12.Load(), "tls1.3": s.tls13.Load()}
	for _, k := range tlsCurves {
		if n := s.byCurve[k.id].Load(); n > 0 {
			m["kx."+k.name] = n
		}
	}
	return m
}

// WrapConn starts the clock of the connection's handshake, made on first use.
func (s *tlsStage) WrapConn(c net.Conn) net.Conn {
	s.c.seen.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	return &tlsConn{Conn: tls.Server(c, s.tls), raw: c, s: s, accepted: s.env.clock.Now(), ctx: ctx, cancel: cancel}
}

// tlsConn does its server handshake on first use, after the delay and
// with a slot, and reports what it did.
type tlsConn struct {
	*tls.Conn
	raw      net.Conn
	s        *tlsStage
	accepted time.Time
	once     sync.Once
	err      error
	ctx      context.Context
	cancel   context.CancelFunc
}

// NetConn returns the connection under TLS.
func (c *tlsConn) NetConn() net.Conn { return c.raw }

func (c *tlsConn) Read(p []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *tlsConn) Write(p []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

func (c *tlsConn) Close() error {
	c.cancel()
	return c.Conn.Close()
}

// Abort resets the connection under TLS, with no close_notify: the peer
// sees the failure, not a clean end. (CloseWrite is tls.Conn's: a
// close_notify.)
func (c *tlsConn) Abort() error {
	c.cancel()
	abortConn(c.raw)
	return nil
}

// handshaker is a connection whose stage makes a handshake before any of
// its bytes pass (tlsConn): the box may run it before the first Read.
type handshaker interface{ handshake() error }

// pendingHandshake finds the handshaker under c's wrappers, or nil.
func pendingHandshake(c net.Conn) handshaker {
	for range 16 {
		switch v := c.(type) {
		case handshaker:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}

func (c *tlsConn) handshake() error {
	c.once.Do(func() { c.err = c.s.handshake(c) })
	return c.err
}

func (s *tlsStage) handshake(c *tlsConn) error {
	ctx, cancel := context.WithTimeout(c.ctx, s.timeout)
	defer cancel()
	id := exchange.ConnID(c.raw)
	entry := LedgerEntry{Conn: id, Action: ActHandshake}
	start := c.accepted
	if s.slots != nil {
		select {
		case s.slots <- struct{}{}:
		default:
			s.queued.Add(1)
			select {
			case s.slots <- struct{}{}:
			case <-ctx.Done():
				return s.failed(entry, fmt.Errorf("tls: waiting for a handshake slot: %w", ctx.Err()))
			}
		}
		defer func() { <-s.slots }()
		if now := s.env.clock.Now(); now.After(start) {
			entry.QueuedMs = timing.Millis(now.Sub(start))
			s.c.addQueued(now.Sub(start))
			start = now
		}
	}
	asked := s.cfg.HandshakeDelay.Sample(s.rngFor(id))
	if asked > 0 {
		if err := waitUntil(ctx, s.env, start.Add(asked)); err != nil {
			return s.failed(entry, fmt.Errorf("tls: handshake delay: %w", err))
		}
		applied := s.env.clock.Now().Sub(start)
		s.c.addDelay(applied)
		entry.AskedMs, entry.AppliedMs = timing.Millis(asked), timing.Millis(applied)
	}
	// Handshake, not HandshakeContext: that one starts a goroutine per
	// handshake to watch ctx and, done, waits for it to answer — a wake-up
	// on the path of the connection's first request. The timeout (or a
	// Close) sets a deadline in the past instead, which fails the socket's
	// reads and writes.
	stop := context.AfterFunc(ctx, func() { _ = c.raw.SetDeadline(time.Unix(1, 0)) })
	err := c.Conn.Handshake()
	if !stop() {
		err = fmt.Errorf("tls: handshake: %w", ctx.Err())
	}
	if err != nil {
		return s.failed(entry, err)
	}
	st := c.Conn.ConnectionState()
	s.handshakes.Add(1)
	s.c.passed.Add(1)
	entry.Note = tls.VersionName(st.Version)
	if n, ok := s.byCurve[st.CurveID]; ok {
		n.Add(1)
		entry.Note += " " + curveName(st.CurveID)
	}
	if st.Version == tls.VersionTLS13 {
		s.tls13.Add(1)
	} else {
		s.tls12.Add(1)
	}
	if st.DidResume {
		s.resumed.Add(1)
		entry.Note += " resumed"
	}
	if asked > 0 || entry.QueuedMs > 0 {
		s.env.record(entry)
	}
	return nil
}

func (s *tlsStage) rngFor(id uint64) randSource {
	if s.cfg.HandshakeDelay.IsFixed() {
		return nil
	}
	return s.env.rng(id)
}

func (s *tlsStage) failed(entry LedgerEntry, err error) error {
	s.failures.Add(1)
	s.c.reject(0)
	entry.Action, entry.Note = ActRejected, err.Error()
	s.env.record(entry)
	return err
}

// waitUntil waits on the stage's clock until deadline.
func waitUntil(ctx context.Context, env *stageEnv, deadline time.Time) error {
	_, err := env.wait(ctx, deadline.Sub(env.clock.Now()))
	return err
}
