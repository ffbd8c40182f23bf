package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/middlebench/middlebench/internal/atomicfile"
	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/precise"
	"github.com/middlebench/middlebench/wire"
)

// Path is a running chain of boxes.
type Path struct {
	cfg        PathConfig
	boxes      []*Box
	upstream   *url.URL
	sink       *jsonlSink
	file       *atomicfile.File
	admins     []*http.Server
	adminURL   []string
	log        io.Writer
	stopMu     sync.Mutex // stop is set after AfterFunc, which may already be running Close
	stop       func() bool
	sleeper    *precise.Sleeper
	wire       *wire.Wire // in front of the first box, or nil (wire.go)
	wireLedger *ledger
	once       sync.Once
	err        error
}

// PathStats is every box's counters, in path order.
type PathStats struct {
	Boxes []BoxStats  `json:"boxes"`
	Wire  *wire.Stats `json:"wire,omitempty"` // the packet-level link in front of the first box
}

// Start starts the boxes of cfg, the last forwarding to upstreamURL and
// each other to the next, and their admin endpoints. The path closes when
// ctx is done or Close is called.
func Start(ctx context.Context, cfg PathConfig, upstreamURL string) (*Path, error) {
	return start(ctx, cfg, upstreamURL, clock.Real{})
}

func start(ctx context.Context, cfg PathConfig, upstreamURL string, clk clock.Clock) (*Path, error) {
	up, err := url.Parse(upstreamURL)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("proxy: upstream %q: want http://host:port or https://host:port", upstreamURL)
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if err := cfg.checkListens(); err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	for i := range cfg.Boxes {
		if err := cfg.Boxes[i].validate(); err != nil {
			return nil, fmt.Errorf("proxy: box %q: %w", cfg.Boxes[i].displayName(i), err)
		}
	}
	p := &Path{cfg: cfg, upstream: up, log: cfg.Log}
	if p.log == nil {
		p.log = io.Discard
	}
	if cfg.LedgerFile != "" {
		// Written under a temporary name and renamed at Close: a killed
		// proxy leaves the previous ledger, never half of a new one.
		f, err := atomicfile.Create(cfg.LedgerFile)
		if err != nil {
			return nil, fmt.Errorf("proxy: ledgerFile: %w", err)
		}
		p.file, p.sink = f, newJSONLSink(f)
	}
	// Start from the upstream end, so that each box knows its next hop.
	next := up
	var nextPool *x509.CertPool
	nextTLS := upstreamTLS(up)
	p.boxes = make([]*Box, len(cfg.Boxes))
	if _, real := clk.(clock.Real); real {
		p.sleeper = precise.NewSleeper()
		clk = clock.Precise{S: p.sleeper}
	}
	listenIn, wireAddr, err := p.startWire(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	for i := len(cfg.Boxes) - 1; i >= 0; i-- {
		env := boxEnv{index: i, seed: cfg.Seed, clock: clk, ledgerHeader: cfg.LedgerHeader,
			ledgerLimit: cfg.LedgerLimit, sink: p.sink, log: p.log, ownProcess: cfg.OwnProcess}
		if i == 0 && listenIn != nil {
			env.listenIn, env.listenAddr = listenIn, wireAddr
		}
		b, err := startBox(cfg.Boxes[i], env, next, nextTLS, nextPool)
		if err != nil {
			return p.failStart(fmt.Errorf("proxy: %w", err))
		}
		p.boxes[i] = b
		next, nextPool = b.url, b.pool
		nextTLS = &tls.Config{RootCAs: b.pool, MinVersion: tls.VersionTLS12}
	}
	if err := p.startAdmin(cfg.Admin, p.AdminHandler()); err != nil {
		return p.failStart(err)
	}
	for _, b := range p.boxes {
		if b.cfg.Admin != "" {
			if err := p.startAdmin(b.cfg.Admin, p.adminHandler(b.name)); err != nil {
				return p.failStart(err)
			}
		}
	}
	stop := context.AfterFunc(ctx, func() { p.Close() })
	p.stopMu.Lock()
	p.stop = stop
	p.stopMu.Unlock()
	return p, nil
}

// upstreamTLS is how the last box speaks to an https upstream: loopback
// servers (the fake server's --tls) have throw-away self-signed
// certificates nobody can verify, so verification is skipped for them only.
func upstreamTLS(u *url.URL) *tls.Config {
	if u.Scheme != "https" {
		return nil
	}
	ip := net.ParseIP(u.Hostname())
	loop := u.Hostname() == "localhost" || ip != nil && ip.IsLoopback()
	return &tls.Config{InsecureSkipVerify: loop, ServerName: u.Hostname(), MinVersion: tls.VersionTLS12} //nolint:gosec // loopback test servers only
}

// failStart closes what start opened; the ledger file it began is dropped.
func (p *Path) failStart(err error) (*Path, error) {
	if p.file != nil {
		p.file.Abort()
		p.file = nil
	}
	p.Close()
	return nil, err
}

func (p *Path) startAdmin(addr string, h http.Handler) error {
	if addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("proxy: admin: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10e9}
	p.admins = append(p.admins, srv)
	p.adminURL = append(p.adminURL, "http://"+ln.Addr().String())
	go srv.Serve(ln) //nolint:errcheck // returns ErrServerClosed on Close
	return nil
}

// URL is the path's entry: the first box's URL (https when it terminates
// TLS, or passes TLS through to a box that does).
func (p *Path) URL() string { return p.boxes[0].URL() }

// Boxes returns the boxes in path order.
func (p *Path) Boxes() []*Box { return slices.Clone(p.boxes) }

// AdminURLs returns the admin endpoints' base URLs (path-wide first).
func (p *Path) AdminURLs() []string { return slices.Clone(p.adminURL) }

// Stats returns every box's counters.
func (p *Path) Stats() PathStats {
	s := PathStats{Boxes: make([]BoxStats, 0, len(p.boxes))}
	for _, b := range p.boxes {
		if b != nil {
			s.Boxes = append(s.Boxes, b.Stats())
		}
	}
	s.Wire = p.wireStats()
	return s
}

// Ledger returns the entries kept in memory for every box, in time order.
func (p *Path) Ledger() []LedgerEntry {
	var all []LedgerEntry
	for _, b := range p.boxes {
		if b != nil {
			e, _ := b.ledger.entries()
			all = append(all, e...)
		}
	}
	if p.wireLedger != nil {
		e, _ := p.wireLedger.entries()
		all = append(all, e...)
	}
	slices.SortStableFunc(all, func(a, b LedgerEntry) int { return a.Time.Compare(b.Time) })
	return all
}

// Summary returns one line per box.
func (p *Path) Summary() []string {
	var out []string
	for _, b := range p.boxes {
		if b != nil {
			out = append(out, b.Summary())
		}
	}
	return out
}

// Close stops the admin endpoints and the boxes (entry first), flushes the
// ledger file and writes each box's summary line to the log. It is safe to
// call more than once.
func (p *Path) Close() error {
	p.once.Do(func() {
		p.stopMu.Lock()
		if p.stop != nil {
			p.stop()
		}
		p.stopMu.Unlock()
		var errs []error
		for _, s := range p.admins {
			errs = append(errs, s.Close())
		}
		for _, b := range p.boxes {
			if b != nil {
				errs = append(errs, b.close())
			}
		}
		errs = append(errs, p.closeWire())
		if p.sleeper != nil {
			p.sleeper.Close()
		}
		for _, line := range p.Summary() {
			fmt.Fprintln(p.log, line)
		}
		errs = append(errs, p.sink.flush())
		if p.file != nil {
			errs = append(errs, p.file.Commit())
		}
		p.err = errors.Join(errs...)
	})
	return p.err
}
