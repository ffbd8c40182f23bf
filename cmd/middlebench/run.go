package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/middlebench/middlebench/bench"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/k6script"
	"github.com/middlebench/middlebench/wire"
	"github.com/spf13/cobra"
)

func newRunCmd() *cobra.Command {
	var quick, serveOnly, asJSON, k6Script bool
	var runName, results, outDir, k6, k6Dir string
	var w wire.Flag
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "run FILE.yaml",
		Short: "Replay one experiment, or serve its server and path for real k6",
		Long: `Replay one experiment and print its report (exit status 1 when an
expectation fails, 3 when it could not be measured because the machine was
busy: see bench --help). With --serve-only it runs no load: it starts the server
and the path of one run (--run, default the first) on 127.0.0.1, prints the
URL to aim a generator at — real k6 with the script --k6-script generates
from the same YAML — and serves until Ctrl-C; then analyse k6's output with
middlebench analyze.`,
		Example: `  middlebench run experiments/e1-tls-handshake.yaml
  middlebench run experiments/e3-slow-server-vs-device.yaml --quick

  # a class with real k6: the script is generated from the YAML
  middlebench run experiments/e0-full-summary.yaml --k6-script > e0.js
  middlebench run experiments/e0-full-summary.yaml --serve-only
  k6 run -e TARGET=http://127.0.0.1:… --summary-export=summary.json e0.js
  middlebench analyze summary.json --server-stats server.json

  # the same path behind 75 ms of distance, for real k6 in the generator namespace
  middlebench run experiments/e1-tls-handshake.yaml --serve-only --wire latency=75ms,loss=0.1%`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := experiment.Load(args[0], quick)
			if err != nil {
				return err
			}
			if w.Config != nil {
				if !serveOnly {
					return fmt.Errorf("--wire goes with --serve-only (a replay checks the experiment as its YAML gives it)")
				}
				if err := e.SetWire(*w.Config); err != nil {
					return err
				}
			}
			if k6Script {
				return k6script.Write(e, runName, outDir, cmd.OutOrStdout())
			}
			if serveOnly {
				if asJSON {
					// A parent reads our line and closes our stdin to stop us.
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					defer cancel()
					go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
				}
				return bench.Serve(ctx, e, runName, cmd.OutOrStdout(), asJSON)
			}
			if runName != "" || asJSON {
				return fmt.Errorf("--run and --json go with --serve-only or --k6-script")
			}
			return replay(cmd, bench.Options{Files: []string{args[0]}, Quick: quick, Results: results, K6: k6, K6Dir: k6Dir}, dash)
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "shorter runs (the experiment's quick vars)")
	f.BoolVar(&serveOnly, "serve-only", false, "start the server and the path, print where to aim, serve until Ctrl-C")
	f.StringVar(&runName, "run", "", "with --serve-only: which run's server and path (default the first)")
	f.Var(&w, "wire", "with --serve-only: a packet-level link in front of each path's first box, field=value,… (latency=75ms,rate=100Mbit/s,queue=256KiB,loss=0.1%; up.FIELD/down.FIELD for one direction; root and /dev/net/tun)")
	f.BoolVar(&asJSON, "json", false, "with --serve-only: print one JSON line and stop when stdin closes (for a parent process)")
	f.StringVar(&results, "results", "", "also write a results document for this experiment")
	addK6Flag(f, &k6)
	f.StringVar(&k6Dir, "k6-dir", "", "keep k6's files of each run (script, summary export, NDJSON stream) in DIR/<id>-<n>/")
	f.BoolVar(&k6Script, "k6-script", false, "write the k6 script of each run (generated from the YAML) instead of running")
	f.StringVarP(&outDir, "out-dir", "o", "", "with --k6-script: the directory for the scripts (<id>-<n>.js); without it, one run's script goes to stdout")
	return cmd
}
