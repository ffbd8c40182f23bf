package bench

import (
	"context"
	"os/exec"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
)

// Served is one run's server and path, started for a generator the
// harness does not drive (real k6 on a user's own script): the same
// start as `run --serve-only` (Serve), held by the caller instead of
// until Ctrl-C.
type Served struct {
	t    *localTarget
	info serveInfo
}

// StartServed starts the server and the path of run runName of e (the
// first when ""), on 127.0.0.1, with the path's admin endpoint.
func StartServed(ctx context.Context, e *experiment.Experiment, runName string) (*Served, error) {
	rs := &e.Runs[0]
	if runName != "" {
		var err error
		if rs, err = e.RunNamed(runName); err != nil {
			return nil, err
		}
	}
	t, err := startLocal(ctx, e.ServerFor(rs), e.PathFor(rs), true)
	if err != nil {
		return nil, err
	}
	return &Served{t: t, info: t.info()}, nil
}

// Entry is the URL a generator aims at: the path's first box, or the
// server when the run has no path.
func (s *Served) Entry() string { return s.info.Entry }

// ServerURL is the fake server's own address.
func (s *Served) ServerURL() string { return s.info.Server }

// ServerView is what the server saw, once the requests in flight have
// ended (at most 5 s later).
func (s *Served) ServerView(ctx context.Context) timing.ServerView {
	settle(ctx, s.t)
	return s.t.srv.Stats()
}

// PathStats is every box's and stage's counters; nil without a path.
func (s *Served) PathStats() *proxy.PathStats {
	ps, _ := s.t.pathStats(context.Background()) // a local path's stats cannot fail
	return ps
}

// Start starts cmd where the path's entry is reachable: in the wire's
// generator namespace when the path has a wire, as it is otherwise.
func (s *Served) Start(cmd *exec.Cmd) error {
	enter, err := genEnter(s.t, s.info.Gen)
	if err != nil {
		return err
	}
	return enter(cmd.Start)
}

// Close stops the path and the server.
func (s *Served) Close() error { return s.t.close() }
