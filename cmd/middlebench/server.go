package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/middlebench/middlebench/dashboard"
	"github.com/middlebench/middlebench/fakeserver"
	"github.com/spf13/cobra"
)

func newServerCmd() *cobra.Command {
	var cfg fakeserver.Config
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the fake origin: it works as told and reports its own time in Server-Timing",
		Long: `Run the fake origin (the article's WAS). Per request it waits for a worker
slot, reads the body (optionally capped), works (sleeps and/or burns CPU),
and answers a body of the given size (optionally gzipped and capped).
Every response carries Server-Timing: app;dur=<work ms>, queue;dur=, read;dur=.

Its own view — the APM stand-in — is at /_mb/stats (JSON), /metrics
(Prometheus) and /_mb/health; POST /_mb/reset starts a new window, on the
--admin-listen address only (never through the served one, which boxes and
students reach).
Query parameters override the defaults per request:
  ?work=500ms  ?work=normal:50ms,5ms  ?cpu=2ms  ?size=8KiB  ?status=429
within bounds: work's mean <= 60s (each draw cut there), cpu <= 10s,
size <= 1GiB, none negative, status 200-599; out of range is a 400 naming
the parameter. A request's work stops when its client leaves.

It listens on loopback only (127.0.0.1, ::1, localhost): an address such as
0.0.0.0:8080, :8080 or a LAN IP is refused unless --allow-remote is given.
A client is cut off when its headers take longer than --read-header-timeout
(default 10s, slowloris) or its whole request longer than --read-timeout
(default 60s, k6's own request timeout; a slow body gets 408).
Ctrl-C or SIGTERM finishes the requests in flight for up to 10s, then stops
their work and closes their connections, and prints what it served.`,
		Example: `  # a 50 ms server, then look at what it reports
  middlebench server --work 50ms &
  curl -si 127.0.0.1:8080/ | grep Server-Timing
  curl -s 127.0.0.1:8080/_mb/stats

  # seed 003: 10 workers x 50 ms = about 200 requests/s of capacity
  middlebench server --workers 10 --work 50ms

  # E4: 256 KiB responses, 10 MiB/s egress for all connections together
  middlebench server --work 100ms --size 256KiB --write-rate 10MiB/s

  # seed 004: a CPU-bound handler (bcrypt-like), HTTPS; GOMAXPROCS above the
  # CPU count lets the OS time-slice busy handlers as a thread-per-request
  # server does, so the server's own time grows with concurrency
  GOMAXPROCS=64 middlebench server --cpu 4ms --tls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServer(cmd.Context(), cmd, cfg, dash)
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVar(&cfg.Listen, "listen", "127.0.0.1:8080", "address to listen on (loopback only unless --allow-remote)")
	f.StringVar(&cfg.AdminListen, "admin-listen", "", "serve the admin paths, with POST /_mb/reset, on this address too (loopback only unless --allow-remote)")
	f.BoolVar(&cfg.AllowRemote, "allow-remote", false, "allow --listen beyond loopback (every interface, a LAN IP): anyone who reaches it is answered")
	f.Var(&cfg.ReadHeaderTimeout, "read-header-timeout", "cut off a client whose request headers take longer (default 10s)")
	f.Var(&cfg.ReadTimeout, "read-timeout", "cut off a client whose whole request takes longer; a slow body gets 408 (default 60s)")
	f.Var(&cfg.Work, "work", "work per request: 50ms, normal:50ms,5ms, lognormal:p50=40ms,p99=200ms, uniform:20ms..80ms, exponential:50ms")
	f.Var(&cfg.CPU, "cpu", "CPU time burnt per request (spinning), e.g. 4ms")
	f.IntVar(&cfg.Workers, "workers", 0, "requests served at once; the rest queue (0 = unlimited)")
	f.IntVar(&cfg.MaxQueue, "max-queue", 0, "queued requests beyond which 503 is answered (0 = unlimited)")
	f.Var(&cfg.Size, "size", "response body size, e.g. 256KiB")
	f.IntVar(&cfg.Status, "status", 200, "response status")
	f.BoolVar(&cfg.Gzip, "gzip", false, "gzip the body when the client accepts it")
	f.Var(&cfg.ReadRate, "read-rate", "request-body read cap for all connections together, e.g. 8MiB/s")
	f.Var(&cfg.WriteRate, "write-rate", "response write cap for all connections together, e.g. 10MiB/s")
	f.BoolVar(&cfg.TLS, "tls", false, "serve HTTPS with an in-memory self-signed certificate")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed for the work distribution's draws")
	return cmd
}

func runServer(ctx context.Context, cmd *cobra.Command, cfg fakeserver.Config, dash *dashFlags) error {
	srv, err := fakeserver.Start(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "middlebench server on %s (work %v, cpu %v, workers %s, size %v, status %d)\n",
		srv.URL(), cfg.Work, cfg.CPU, orUnlimited(cfg.Workers), cfg.Size, cfg.Status)
	fmt.Fprintf(out, "  stats %s/_mb/stats  metrics %s/metrics  Ctrl-C to stop\n", srv.URL(), srv.URL())
	if srv.AdminURL() != "" {
		fmt.Fprintf(out, "  admin %s (POST /_mb/reset)\n", srv.AdminURL())
	}
	ld, err := dash.start(ctx, out, "server "+srv.URL(), dashboard.Sources{Server: srv.Stats})
	if err != nil {
		srv.Close()
		return err
	}
	<-ctx.Done()
	defer ld.finish(ctx, nil) //nolint:errcheck // the report of a server alone is best effort
	shut, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shut)
	if errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(out, "middlebench server: the %v grace is over: the work of the requests still in flight was stopped\n", shutdownGrace)
		err = nil
	}
	fmt.Fprintln(out, "middlebench server:", srv.Summary())
	return err
}

// shutdownGrace: how long requests in flight may finish after Ctrl-C or
// SIGTERM before their work is stopped (a ?cpu=10s one would not).
const shutdownGrace = 10 * time.Second

func orUnlimited(n int) string {
	if n <= 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}
