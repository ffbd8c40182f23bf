package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/internal/units"
)

func newLoadCmd() *cobra.Command {
	var (
		o                      console.Options
		cfg                    load.Config
		userAgent              string
		gracefulStop, rampDown units.Duration
		maxRedirects           int
		segmentIndex           int
		env, tags              []string
	)
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "load [URL]",
		Short: "Run a load test with k6's executors, phases, files, flags and exit statuses",
		Long: `load drives HTTP requests with k6's executors and measures every request's
phases exactly as k6 does (blocked, connecting, tls_handshaking, sending,
waiting, receiving; duration = sending + waiting + receiving), plus
server_time read from the response's Server-Timing header.

The executor follows k6's shortcuts: --rate (with --duration, or --stage)
is an open model (arrival rate, dropped_iterations), --stage alone is
ramping-vus, --iterations is shared-iterations, --duration is constant-vus.
--vus 0 with a duration or iterations, --duration 0s and --iterations 0 are
invalid, as in k6 (--vus 0 alone is ignored).

It runs options, not scripts: a k6 script (FILE.js as the target or as
--config) is refused with the command that runs it unchanged with real k6
through a path (middlebench k6 EXPERIMENT.yaml -- run FILE.js), and so are
options only a script can honour (an exec function, thresholds on checks,
groups or custom metrics).

--config takes middlebench's YAML scenario or k6's options object, YAML or
JSON — what a script exports or what "k6 inspect" prints: scenarios (several
executors at once, startTime, exec: default, tags, env), thresholds in both
forms ({threshold, abortOnFail, delayAbortEval}), summaryTrendStats, tags,
noConnectionReuse, noVUConnectionReuse, userAgent, insecureSkipTLSVerify,
discardResponseBodies. null means unset; a k6 option middlebench cannot
honour is an error naming the key and its line; an unknown key is ignored
with a warning, as k6 does for a script's options. As in k6, the K6_*
environment variables of the options the engine has (K6_VUS, K6_DURATION,
K6_ITERATIONS, K6_STAGES, K6_USER_AGENT, K6_NO_CONNECTION_REUSE, …) win
over the file and flags win over both; a duration, iterations or stages
given there replace the file's whole schedule, scenarios included (with
k6's warning). With no script, -e NAME=VALUE (and the environment)
fill ${NAME} in the URL, the urls and the header values.

Files: --summary-export is k6's legacy JSON, key for key; --results is
middlebench's results document (handleSummary shape plus histograms,
steps, errors) that "middlebench analyze" reads; --out json / --out csv
stream k6's NDJSON and CSV (to stdout with no file or "-"). Summary files
are written whole or not at all; streams are created at their first data
and hold whole lines only.

An unreachable target is not checked beforehand: the run goes on and
counts each request failed (k6 error codes, e.g. 1212 connection refused);
a request that takes longer than --timeout (60s) fails with 1050.

Exit status: 99 when a threshold fails, 104 for an invalid configuration,
105 when interrupted (Ctrl-C still prints and writes what was measured).`,
		Example: `  # 3 VUs for 5 s, full summary (phases and server time)
  middlebench load --vus 3 --duration 5s --summary-mode full http://127.0.0.1:8080/?work=50ms

  # open model: 200 requests/s for 6 s, at most 50 VUs
  middlebench load --rate 200/s --duration 6s --max-vus 50 http://127.0.0.1:8080/

  # ramping VUs, a new connection per request, thresholds (exit 99 if crossed)
  middlebench load --stage 10s:8 --stage 20s:32 --no-connection-reuse \
      --threshold 'http_req_failed:rate<0.01' --threshold 'http_req_duration:p(95)<500' https://127.0.0.1:8443/

  # a k6 script's options (e.g. from "k6 inspect script.js"), k6's export, CSV and NDJSON
  k6 inspect script.js > options.json
  middlebench load --config options.json -e TARGET=http://127.0.0.1:8080 \
      --summary-export summary.json --out csv=points.csv --out json=points.ndjson.gz

  # middlebench's own results document, for "middlebench analyze"
  middlebench load --vus 3 --duration 5s --results results.json http://127.0.0.1:8080/
  middlebench analyze results.json

  # scale-out: one quarter of 400/s on each of 4 machines, then merge the results
  middlebench load --rate 400/s --duration 10s --execution-segment 1/4:2/4 \
      --execution-segment-sequence 0,1/4,2/4,3/4,1 --results part2.json http://127.0.0.1:8080/
  middlebench merge part1.json part2.json part3.json part4.json -o merged.json

  # the same, each process naming only its place in the split (a Kubernetes Indexed Job's pod)
  middlebench load --rate 400/s --duration 10s --execution-segment-sequence 0,1/4,2/4,3/4,1 \
      --execution-segment-index 1 --start-url http://merge:8080/start/1 \
      --results-url http://merge:8080/results/1 http://10.0.0.9:8080/

  # look at the requests and responses (heads; =full adds bodies)
  middlebench load --iterations 2 --http-debug http://127.0.0.1:8080/`,
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
			if f.Changed("execution-segment-index") {
				o.SegmentIndex = &segmentIndex
			}
			if len(args) == 1 {
				o.URL = args[0]
			}
			var err error
			o.Environ = os.Environ() // K6_VUS, K6_DURATION, … as k6 reads them
			if o.Env, err = envOf(os.Environ(), env); err != nil {
				return &exitError{code: console.ExitInvalidConfig, err: err}
			}
			if o.Tags, err = pairs("--tag", tags, false); err != nil {
				return &exitError{code: console.ExitInvalidConfig, err: err}
			}
			o.Verbose, _ = cmd.Flags().GetBool("verbose")
			o.Flags, o.Changed = &cfg, f.Changed
			o.Stdout, o.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			err = dash.aroundLoad(cmd.Context(), cmd.ErrOrStderr(), &o, func() error { return console.Run(cmd.Context(), o) })
			var ce *console.ExitError
			if errors.As(err, &ce) {
				return &exitError{code: ce.Code, err: ce.Err}
			}
			return err
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVarP(&o.ConfigFile, "config", "c", "", "middlebench's YAML scenario or k6's options object, YAML or JSON (e.g. from k6 inspect); flags override it")
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
	f.StringVar(&cfg.ExecutionSegment, "execution-segment", "", `run only this segment of the test, k6's form ("1/4:2/4", "25%:50%"); merge the results with "middlebench merge"`)
	f.StringVar(&cfg.ExecutionSegmentSequence, "execution-segment-sequence", "", `every segment of the split test ("0,1/4,2/4,3/4,1"), so each process takes its stripes`)
	f.IntVar(&segmentIndex, "execution-segment-index", 0, "run the segment at this place (from 0) of --execution-segment-sequence, e.g. from a Kubernetes Indexed Job's $(JOB_COMPLETION_INDEX)")
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
	f.StringVar(&o.SummaryExport, "summary-export", "", "write k6's legacy summary export (JSON, key for key as k6) to this file")
	f.StringVar(&o.Results, "results", "", "write middlebench's results document (JSON: handleSummary shape, histograms, steps) to this file")
	f.BoolVar(&o.NoThresholdExit, "no-threshold-exit", false, "evaluate and report thresholds but exit 0 when one is crossed (a segment of a split test: merge judges the whole)")
	f.StringVar(&o.StartURL, "start-url", "", `start the run when this URL answers 200 ("middlebench merge --listen" opens GET /start/INDEX when every segment asked): segments start together`)
	f.StringVar(&o.ResultsURL, "results-url", "", `PUT the results document to this URL at the end ("middlebench merge --listen" receives it); retried for 5 min`)
	f.StringVar(&o.SummaryMode, "summary-mode", "compact", "end-of-test summary: compact, full (phases, scenario, steps) or disabled")
	f.StringSliceVar(&o.SummaryTrendStats, "summary-trend-stats", nil, `trend stats of the summary and --summary-export, e.g. avg,p(99.9),count (default "avg,min,med,max,p(90),p(95)")`)
	f.StringVar(&o.SummaryTimeUnit, "summary-time-unit", "", "time unit of the summary: s, ms or us (default: k6's automatic)")
	f.BoolVar(&o.NoSummary, "no-summary", false, "print no end-of-test summary (as --summary-mode disabled)")
	f.BoolVar(&o.NoThresholds, "no-thresholds", false, "do not evaluate thresholds (no exit 99, none in the summary or export)")
	f.StringArrayVarP(&o.Out, "out", "o", nil, "json[=FILE] k6 NDJSON points, csv[=FILE] k6 CSV rows (FILE - or none: stdout for json, file.csv for csv; .gz: gzipped); repeatable")
	f.StringVar(&o.HTTPDebug, "http-debug", "", "log every request and response head to stderr as k6 does; =full adds bodies")
	f.Lookup("http-debug").NoOptDefVal = "headers"
	f.StringArrayVarP(&env, "env", "e", nil, "NAME=VALUE for ${NAME} in the URL, urls and header values (k6's __ENV); repeatable")
	f.StringArrayVar(&tags, "tag", nil, "NAME=VALUE tag on every sample (json, csv, submetrics); repeatable")
	f.BoolVar(&o.Progress, "progress", false, "print progress even with --quiet")
	f.BoolVarP(&o.Quiet, "quiet", "q", false, "no header and no progress (k6's --quiet)")
	f.Bool("no-color", false, "k6's flag, accepted: the engine's output has no colour to turn off")
	return cmd
}

// envOf is k6's __ENV for a run without a script: the environment, with
// -e NAME=VALUE on top (a bare NAME is NAME="" as in k6).
func envOf(environ, flags []string) (map[string]string, error) {
	env, _ := pairs("", environ, true)
	given, err := pairs("-e/--env", flags, true)
	if err != nil {
		return nil, err
	}
	for k, v := range given {
		env[k] = v
	}
	return env, nil
}

// pairs reads NAME=VALUE items; emptyOK allows a missing value.
func pairs(flag string, items []string, emptyOK bool) (map[string]string, error) {
	out := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if k == "" || (!ok && !emptyOK) || (!emptyOK && v == "") {
			return nil, fmt.Errorf("%s %q: want NAME=VALUE", flag, it)
		}
		out[k] = v
	}
	return out, nil
}
