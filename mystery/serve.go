package mystery

import (
	"context"
	"errors"
	"fmt"

	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/proxy"
)

// Running is a mystery being served: its fake server and its path.
type Running struct {
	M      *Mystery
	Server *fakeserver.Server
	Path   *proxy.Path
}

// Start serves m: the fake server on a free loopback port and the path in
// front of it, its entry on listen (default a free loopback port). Both
// stop when ctx ends or Close is called.
func Start(ctx context.Context, m *Mystery, listen string) (*Running, error) {
	srv, err := fakeserver.Start(ctx, m.Server)
	if err != nil {
		return nil, fmt.Errorf("mystery: server: %w", err)
	}
	cfg := m.Path
	cfg.Boxes = append([]proxy.BoxConfig(nil), cfg.Boxes...)
	if listen != "" {
		cfg.Boxes[0].Listen = listen
	}
	p, err := proxy.Start(ctx, cfg, srv.URL())
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("mystery: path: %w", err)
	}
	return &Running{M: m, Server: srv, Path: p}, nil
}

// URL is where the students aim: the path's entry (https: the edge box
// terminates TLS with a self-signed certificate).
func (r *Running) URL() string { return r.Path.URL() }

// Counters reads what the stages and the server say they did so far.
func (r *Running) Counters() (*Counters, error) { return Snapshot(r.Path, r.Server.Stats()) }

// Key is the answer key as the counters say it now.
func (r *Running) Key() (Key, error) {
	c, err := r.Counters()
	if err != nil {
		return Key{}, err
	}
	return r.M.KeyFrom(c), nil
}

// Close stops the path, then the server.
func (r *Running) Close() error {
	return errors.Join(r.Path.Close(), r.Server.Close())
}
