package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/internal/units"
	"github.com/spf13/cobra"
)

func newAnalyzeCmd() *cobra.Command {
	var (
		opts             = diagnose.Options{ServerCount: -1}
		avg, p95, bucket units.Duration
		maxBytes         = units.Size(diagnose.DefaultMaxBytes)
		rate             units.Rate
		uplink, downlink units.ByteRate
	)
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Name the cause behind a run's numbers: phases beside the server's own time",
		Long: `analyze reads load-test results and says where the time went, with the
rules of "when k6 says slow but the APM says fine": a phase table (avg and p95
of blocked, connecting, tls_handshaking, sending, waiting, receiving and
duration, the server's own time and the time outside the server), then the
findings ordered by the time they explain, each with its evidence, what to
suspect first and what to check next.

It reads middlebench's results document, k6's --summary-export, k6's
handleSummary JSON, k6's --out json (NDJSON, plain or .gz), k6's --out csv
and k6's printed end-of-test summary; the format is detected.

The server's own view sharpens the diagnosis: --server-stats with the fake
server's /_mb/stats, or the figures of an APM screen with --server-count,
--server-avg and --server-p95. So do the generator's CPU, the executor and
the links' capacities.

k6's --out json and --out csv streams do not say which executor ran (the
scenario tag is only the scenario's name). A stream is cut into steps where
its VUs change, as a closed model, unless it dropped iterations; for an
arrival-rate run that dropped none, pass --executor ramping-arrival-rate (or
constant-arrival-rate), so that its steps are cut by arrivals per second
and it is judged as an open model.

Every input is bounded: --max-bytes after decompression, --max-points for a
stream; values out of range (negative times, counts past 1e15, min above
max) make the file unreadable, named by metric and field.

Exit status: 0 when analysed (findings are not errors), 2 when an input
cannot be read.` + codesHelp(),
		Example: `  middlebench analyze results.json
  k6 run --out json=points.json.gz script.js && middlebench analyze points.json.gz
  middlebench analyze summary.json --server-count 36 --server-avg 51.27ms --server-p95 51.6ms
  middlebench analyze points.json.gz --server-stats stats.json --generator-cpu 85 --json
  middlebench analyze export.json --executor constant-vus --vus 400 --config rules.yaml
  middlebench analyze points.json --executor ramping-arrival-rate --server-stats stats.json
  middlebench analyze through-path.json --baseline straight-at-server.json
  middlebench analyze straight.json through-path.json --chart phases.svg`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.ServerAvg, opts.ServerP95, opts.Bucket = avg.D(), p95.D(), bucket.D()
			opts.Rate = rate.PerSecond()
			opts.MaxBytes = maxBytes.Bytes()
			opts.UplinkBps, opts.DownlinkBps = uplink.BytesPerSecond(), downlink.BytesPerSecond()
			opts.Out = cmd.OutOrStdout()
			err := diagnose.Run(cmd.Context(), opts)
			if errors.Is(err, diagnose.ErrUnreadable) {
				return &exitError{code: 2, err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.ServerStats, "server-stats", "", "the server's /_mb/stats JSON saved to a file")
	f.Int64Var(&opts.ServerCount, "server-count", -1, "requests the server (APM) counted")
	f.Var(&avg, "server-avg", "the server's (APM's) average time, e.g. 51.27ms")
	f.Var(&p95, "server-p95", "the server's (APM's) p95 time, e.g. 51.6ms")
	f.Float64Var(&opts.CPU, "generator-cpu", 0, "the generator's CPU use during the run, percent of its cores")
	f.StringVar(&opts.Executor, "executor", "", "the k6 executor of the run (constant-vus, ramping-arrival-rate, …); a k6 stream does not say it, so give it for an arrival-rate run")
	f.IntVar(&opts.VUs, "vus", 0, "VUs of a closed-model run")
	f.Var(&rate, "rate", "arrival rate of an open-model run, e.g. 200/s")
	f.Var(&uplink, "uplink", "the generator's uplink capacity, e.g. 1Gbit/s")
	f.Var(&downlink, "downlink", "the generator's downlink capacity, e.g. 10MiB/s")
	f.Var(&bucket, "bucket", "narrowest time bucket of a k6 --out json/csv stream (default 1s; doubles for long runs)")
	f.Var(&maxBytes, "max-bytes", "refuse an input larger than this once decompressed (a small gzip can expand to any size)")
	f.Int64Var(&opts.MaxPoints, "max-points", diagnose.DefaultMaxPoints, "refuse a k6 stream with more points than this")
	f.StringVar(&opts.ServerMetric, "server-metric", "server_time", "name of the trend that carries the server's time in k6 files")
	f.StringVar(&opts.Baseline, "baseline", "", "the same scenario run straight at the server: show the difference phase by phase (rule 11)")
	f.StringVar(&opts.ConfigPath, "config", "", "rules thresholds (YAML) over the defaults")
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.Chart, "chart", "", "also draw an SVG: a sweep's steps as curves, or each file's phases as a bar (e.g. chart.svg)")
	return cmd
}

// codesHelp lists the finding codes with their doc lines, as the rules
// table gives them.
func codesHelp() string {
	width := 0
	for _, c := range diagnose.CodeDocs() {
		width = max(width, len(c.Code))
	}
	var b strings.Builder
	b.WriteString("\n\nThe finding codes, in the order the rules run:")
	for _, c := range diagnose.CodeDocs() {
		fmt.Fprintf(&b, "\n  %-*s  %s", width, c.Code, c.Doc)
	}
	return b.String()
}
