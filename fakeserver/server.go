package fakeserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/pace"
	"github.com/middlebench/middlebench/internal/precise"
	"github.com/middlebench/middlebench/internal/selfsigned"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// Server is a running fake origin.
type Server struct {
	cfg      Config
	def      spec
	lim      limits
	ln       net.Listener
	http     *http.Server
	url      string
	stats    *stats
	sleeper  *precise.Sleeper
	clk      clock.Clock   // times work, caps and Server-Timing
	readCap  *pace.Bytes   // shared by every connection, like a server's ingress limit
	writeCap *pace.Bytes   // … and its egress
	slots    chan struct{} // worker pool; nil = unlimited
	queued   atomic.Int64
	conns    atomic.Uint64
	gzip     *sync.Pool
	bufs     sync.Pool    // request-body read buffers
	admin    http.Handler // the admin paths on the served address (read-only)
	adminSrv *http.Server // the admin listener's server (nil without one)
	adminURL string
	// stopWork ends the work of every request in flight (their contexts
	// derive from it): Shutdown's grace is over.
	stopWork context.CancelFunc
	done     chan struct{} // closed when Serve returns
	serveErr error         // what Serve returned; read after done
	once     sync.Once
}

// connState is per connection: which stats shard it records into, and its
// own random source for the work distribution (HTTP/2 may multiplex, so it
// is locked; on HTTP/1.1 the lock is never contended).
type connState struct {
	shard uint64
	mu    sync.Mutex
	rng   *rand.Rand
	heads *headScan // nil under TLS, where the raw heads are not visible
}

type connKey struct{}

// Start listens and serves until ctx is done or Close is called.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	addr := cfg.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakeserver: listen %s: %w", addr, err)
	}
	scheme := "http"
	if !cfg.TLS {
		ln = scanListener{ln} // sees the plaintext request heads (smuggling check)
	}
	if cfg.TLS {
		cert, err := selfsigned.New()
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("fakeserver: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}})
		scheme = "https"
	}
	s := &Server{
		cfg:     cfg,
		def:     spec{work: cfg.Work, cpu: cfg.CPU.D(), size: cfg.Size.Bytes(), status: cfg.status()},
		lim:     cfg.limits(),
		ln:      ln,
		url:     scheme + "://" + ln.Addr().String(),
		stats:   newStats(4 * runtime.GOMAXPROCS(0)),
		sleeper: precise.NewSleeper(),
		gzip:    newGzipPool(),
		done:    make(chan struct{}),
	}
	s.clk = cfg.Clock
	if s.clk == nil {
		s.clk = clock.Precise{S: s.sleeper}
	}
	s.readCap = pace.NewBytes(cfg.ReadRate, capBurst(cfg.ReadRate), s.clk)
	s.writeCap = pace.NewBytes(cfg.WriteRate, capBurst(cfg.WriteRate), s.clk)
	if cfg.Workers > 0 {
		s.slots = make(chan struct{}, cfg.Workers)
	}
	s.bufs.New = func() any { b := make([]byte, 32*1024); return &b }
	s.admin = s.adminHandler(false)
	base, stopWork := context.WithCancel(context.Background())
	s.stopWork = stopWork
	s.http = &http.Server{
		Handler:           s,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: cfg.readHeaderTimeout(),
		ReadTimeout:       cfg.readTimeout(),
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          log.New(io.Discard, "", 0), // a client's reset is data for the client, not noise here
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			id := s.conns.Add(1)
			cs := &connState{shard: id, rng: rand.New(rand.NewPCG(cfg.Seed, id))}
			if sc, ok := c.(*scanConn); ok {
				cs.heads = &sc.heads
			}
			return context.WithValue(ctx, connKey{}, cs)
		},
	}
	if cfg.AdminListen != "" {
		aln, err := net.Listen("tcp", cfg.AdminListen)
		if err != nil {
			ln.Close()
			stopWork()
			return nil, fmt.Errorf("fakeserver: admin listen %s: %w", cfg.AdminListen, err)
		}
		s.adminURL = "http://" + aln.Addr().String()
		s.adminSrv = &http.Server{Handler: s.adminHandler(true), ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
		go func() { _ = s.adminSrv.Serve(aln) }()
	}
	go func() {
		s.serveErr = s.http.Serve(ln)
		close(s.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:41234.
func (s *Server) URL() string { return s.url }

// AdminURL is the admin listener's base URL ("" without one).
func (s *Server) AdminURL() string { return s.adminURL }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stats returns the server's own view since start or the last Reset.
func (s *Server) Stats() timing.ServerView { return s.stats.view(s.cfg.Workers) }

// Reset starts a new window of the server's view (the harness resets
// between runs of one experiment).
func (s *Server) Reset() { s.stats.reset() }

// Shutdown stops accepting, lets requests in flight finish until ctx is
// done (the grace), then stops their work and closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	var err error
	s.once.Do(func() {
		err = s.http.Shutdown(ctx)
		s.stopWork()
		if err != nil {
			_ = s.http.Close()
		}
		if s.adminSrv != nil {
			_ = s.adminSrv.Close()
		}
		<-s.done
		s.awaitStopped(stoppedBound)
		s.sleeper.Close()
		if err == nil && !errors.Is(s.serveErr, http.ErrServerClosed) {
			err = s.serveErr
		}
	})
	return err
}

// stoppedBound: how long Shutdown waits, once their work is stopped, for
// the requests still in flight to record themselves (a stopped burn or
// wait ends within microseconds; the bound keeps a wedged handler from
// holding the exit).
const stoppedBound = time.Second

// awaitStopped waits until no request is in flight or the bound passes,
// so that the view read after Shutdown counts every request it stopped.
func (s *Server) awaitStopped(bound time.Duration) {
	deadline := time.Now().Add(bound)
	for s.stats.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

// Close shuts down gracefully, giving requests in flight 10 seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.Shutdown(ctx)
}

// capBurst sizes a cap's bucket: 10 ms of the rate within 1–32 KiB. The
// bucket refills between responses, so each passes that much at once: at
// 32 KiB a lone 256 KiB response at 10 MiB/s still takes 21.9 ms of the
// 25 ms size ÷ cap (E4), and the first 32 KiB of an 8 MiB upload is 0.4 %.
func capBurst(r units.ByteRate) units.Size {
	return units.Size(min(max(r.BytesPerSecond()/100, 1024), 32*1024))
}

// Summary is one line saying what the server served.
func (s *Server) Summary() string {
	v := s.Stats()
	var codes []string
	for code, n := range v.Statuses {
		codes = append(codes, fmt.Sprintf("%s×%d", code, n))
	}
	statuses := ""
	if len(codes) > 0 {
		statuses = " (" + strings.Join(sortedStrings(codes), " ") + ")"
	}
	return fmt.Sprintf("served %d requests%s in %.1fs; server time avg %.2fms p95 %.2fms; queue avg %.2fms; %d B in, %d B out",
		v.Requests, statuses, v.WindowMs/1000,
		v.ServerTime["avg"], v.ServerTime["p(95)"], v.QueueTime["avg"], v.BytesIn, v.BytesOut)
}
