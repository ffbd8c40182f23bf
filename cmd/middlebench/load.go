package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/units"
)

func newLoadCmd() *cobra.Command {
	var (
		o                      console.Options
		cfg                    load.Config
		userAgent              string
		gracefulStop, rampDown units.Duration
		maxRedirects           int
	)
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "load [URL]",
		Short: "Run a load test with k6's executors, phases, summary and exit statuses",
		Long: `load drives HTTP requests with k6's executors and measures every request's
phases exactly as k6 does (blocked, connecting, tls_handshaking, sending,
waiting, receiving; duration = sending + waiting + receiving), plus
server_time read from the response's Server-Timing header.

The executor follows k6's shortcuts: --rate (with --duration, or --stage)
is an open model (arrival rate, dropped_iterations), --stage alone is
ramping-vus, --iterations is shared-iterations, --duration is constant-vus.
A scenario file (--config) holds the same options with k6's names; flags
given on the command line win over it.

Exit status: 99 when a threshold fails, 104 for an invalid configuration,
105 when interrupted (Ctrl-C still prints and writes what was measured).`,
		Example: `  # 3 VUs for 5 s, full summary (phases and server time)
  middlebench load --vus 3 --duration 5s --summary-mode full http://127.0.0.1:8080/?work=50ms

  # open model: 200 requests/s for 6 s, at most 50 VUs
  middlebench load --rate 200/s --duration 6s --max-vus 50 http://127.0.0.1:8080/

  # ramping VUs, a new connection per request, thresholds (exit 99 if crossed)
  middlebench load --stage 10s:8 --stage 20s:32 --no-connection-reuse \
      --threshold 'http_req_failed:rate<0.01' --threshold 'http_req_duration:p(95)<500' https://127.0.0.1:8443/

  # a YAML scenario, results document and k6 NDJSON points
  middlebench load --config scenario.yaml --summary-export out.json --out json=points.ndjson.gz`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			if f.Changed("user-agent") {
				cfg.UserAgent = &userAgent
			}
			if f.Changed("graceful-stop") {
				cfg.GracefulStop = &gracefulStop
			}
			if f.Changed("graceful-ramp-down") {
				cfg.GracefulRampDown = &rampDown
			}
			if f.Changed("max-redirects") {
				cfg.MaxRedirects = &maxRedirects
			}
			if len(args) == 1 {
				o.URL = args[0]
			}
			o.Flags, o.Changed = &cfg, f.Changed
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			err := dash.aroundLoad(cmd.Context(), cmd.ErrOrStderr(), &o, func() error { return console.Run(cmd.Context(), o) })
			var ce *console.ExitError
			if errors.As(err, &ce) {
				return &exitError{code: ce.Code, err: ce.Err}
			}
			return err
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.ConfigFile, "config", "c", "", "YAML scenario file (k6 option names; flags override it)")
	f.StringVar(&cfg.Executor, "executor", "", "k6 executor (default: chosen from --rate, --stage, --iterations, --duration)")
	f.StringVar(&cfg.Scenario, "scenario", "", `scenario tag (default "default")`)
	f.IntVarP(&cfg.VUs, "vus", "u", 0, "number of VUs (default 1)")
	f.VarP(&cfg.Duration, "duration", "d", "test duration (e.g. 30s)")
	f.Int64VarP(&cfg.Iterations, "iterations", "i", 0, "iterations (shared among VUs)")
	f.VarP(console.StageFlag{Stages: &cfg.Stages}, "stage", "s", "a stage DURATION:TARGET (VUs, or arrivals per --time-unit with --rate); repeatable")
	f.Var(&cfg.Rate, "rate", "arrival rate (open model), e.g. 200/s")
	f.Var(&cfg.TimeUnit, "time-unit", "unit of arrival-rate stage targets (default 1s)")
	f.IntVar(&cfg.PreAllocatedVUs, "pre-allocated-vus", 0, "VUs started before an arrival-rate run (default --vus or 1)")
	f.IntVar(&cfg.MaxVUs, "max-vus", 0, "VUs an arrival-rate run may grow to")
	f.Var(&gracefulStop, "graceful-stop", "time iterations in flight get at the end (default 30s)")
	f.Var(&rampDown, "graceful-ramp-down", "time a ramped-down VU gets to finish its iteration (default 30s)")
	f.StringVarP(&cfg.Method, "method", "X", "", "HTTP method (default GET, or POST with --body-size)")
	f.VarP(console.HeaderFlag{Headers: &cfg.Headers}, "header", "H", `request header "Name: value"; repeatable`)
	f.Var(&cfg.BodySize, "body-size", "request body of this size, generated (e.g. 8MiB)")
	f.StringVar(&userAgent, "user-agent", "", `User-Agent (default "middlebench/<version>"; "" sends none)`)
	f.BoolVar(&cfg.NoConnectionReuse, "no-connection-reuse", false, "a new connection for every request")
	f.BoolVar(&cfg.NoVUConnectionReuse, "no-vu-connection-reuse", false, "a VU's connections are closed between iterations")
	f.BoolVar(&cfg.Compress, "compress", false, "ask for gzip (Accept-Encoding) and decompress while receiving")
	f.Var(&cfg.Timeout, "timeout", "per-request timeout, body included (default 60s)")
	f.BoolVar(&cfg.InsecureSkipTLSVerify, "insecure-skip-tls-verify", false, "do not verify the server's certificate")
	f.IntVar(&maxRedirects, "max-redirects", load.DefaultMaxRedirects, "redirects followed per request")
	f.Var(&cfg.Think, "think", "think time after each iteration: 1s, normal:1s,200ms, uniform:0.5s..2s …")
	f.Var(&cfg.ClientCPU, "client-cpu", "CPU time the generator burns after each response (e.g. 4ms)")
	f.StringVar(&cfg.ServerTimingMetric, "server-timing-metric", "", `Server-Timing entry read into server_time (default "app")`)
	f.Var(console.ThresholdFlag{Thresholds: &cfg.Thresholds}, "threshold", `k6 threshold METRIC:EXPR, e.g. 'http_req_failed:rate<0.01'; repeatable`)
	f.StringVar(&o.SummaryExport, "summary-export", "", "write the results document (JSON) to this file")
	f.StringVar(&o.SummaryMode, "summary-mode", "compact", "end-of-test summary: compact or full (phases, scenario, steps)")
	f.StringSliceVar(&o.SummaryTrendStats, "summary-trend-stats", nil, `trend columns (default "avg,min,med,max,p(90),p(95)")`)
	f.StringVar(&o.SummaryTimeUnit, "summary-time-unit", "", "time unit of the summary: s, ms or us (default: k6's automatic)")
	f.BoolVar(&o.NoSummary, "no-summary", false, "print no end-of-test summary")
	f.StringArrayVarP(&o.Out, "out", "o", nil, "json=FILE: k6 NDJSON metric points (gzipped if FILE ends in .gz)")
	f.BoolVar(&o.Progress, "progress", false, "print the progress line even when stderr is not a terminal")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no header and no progress line")
	return cmd
}
