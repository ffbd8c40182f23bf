package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/middlebench/middlebench/bench"
	"github.com/middlebench/middlebench/bench/load/console"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	o := bench.Options{}
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "bench [FILE.yaml…]",
		Short: "Replay the article's experiments, check the diagnosis, write RESULTS.md",
		Long: `Replay experiments (default: every experiments/*.yaml, in name order). For
each run of each experiment it starts the fake server and the run's
middleboxes on 127.0.0.1, runs the load engine through them, collects the
server's own view and each stage's counters, runs the analyzer, and checks
what the experiment expects: finding codes present and absent, and bands on
metrics written relative to what the experiment configured.

It prints a table per experiment and a summary, writes RESULTS.md (with SVG
charts in results/) and exits non-zero when an expectation fails, naming the
experiment, the run, the metric, the band and the value.

Each run (and each step of a sweep) says what processes outside the
experiment took of its CPUs and what the hypervisor stole. A check that
fails while that share is 10 % or more is measured again (the experiment's
runs, up to 3 attempts in all); if every attempt was disturbed the
experiment is NOT MEASURED, with how busy the machine was, instead of FAIL.
A value where load cannot have put it (a time below its band, work done
above it, an exact count off it), and any failure on a quiet machine,
stays FAIL.

Exit status: 0 every experiment passed; 1 an expectation failed (FAIL) or
the replay could not run; 3 nothing failed but some expectations could not
be measured on a machine this busy (NOT MEASURED).

With k6 (on PATH, or --k6 PATH) it replays every run a second time with real k6 as the generator:
the script is generated from the same YAML (see run --k6-script), aimed at
a fresh server and path, pinned where the experiment pins the generator; k6
writes --summary-export (and --out json for a sweep), the same expectations
are checked on them, the analyzer reads both, and RESULTS.md gets a table
of k6 against the engine per run and phase.`,
		Example: `  # everything, as make run does (a few minutes)
  middlebench bench

  # a teaching session: shorter runs, nothing written
  middlebench bench --quick

  # two experiments
  middlebench bench experiments/e1-tls-handshake.yaml experiments/e5-rate-limit.yaml

  # every run again with real k6 (k6 from PATH by default, or this one), its
  # expectations checked too, and a table of k6 against the engine in RESULTS.md
  middlebench bench --k6 /opt/k6/bin/k6 --quick

  # the engine only, even with k6 on PATH
  middlebench bench --k6 off`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Files = args
			if o.Quick && !cmd.Flags().Changed("results") {
				o.Results = "" // quick figures do not replace the full ones
			}
			return replay(cmd, o, dash)
		},
	}
	dash.add(cmd)
	f := cmd.Flags()
	f.BoolVar(&o.Quick, "quick", false, "shorter runs (each experiment's quick vars); RESULTS.md is left alone unless --results is given")
	f.StringVar(&o.Results, "results", "RESULTS.md", "the results document to write (\"\" for none)")
	f.StringVar(&o.ChartsDir, "charts", "", "where the SVG charts go (default: results/ beside the results document)")
	addK6Flag(f, &o.K6)
	f.StringVar(&o.K6Dir, "k6-dir", "", "keep k6's files of each run (script, summary export, NDJSON stream) in DIR/<id>-<n>/")
	return cmd
}

// replay runs the experiments and turns failed expectations into exit
// status 1, and expectations not measured into 3 (the failures themselves
// are in the report).
func replay(cmd *cobra.Command, o bench.Options, dash *dashFlags) error {
	o.Out = cmd.OutOrStdout()
	o.Live = console.IsTerminal(o.Out)
	var s *record.Summary
	err := dash.aroundReplay(cmd.Context(), cmd.ErrOrStderr(), &o, func() (err error) {
		s, err = bench.RunAll(cmd.Context(), o)
		return err
	})
	if err != nil {
		return err
	}
	if f := s.Failures(); len(f) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d expectations failed", len(f))}
	}
	if m := s.NotMeasured(); len(m) > 0 {
		return &exitError{code: exitNotMeasured, err: fmt.Errorf("%d expectations not measured: the machine was busy", len(m))}
	}
	return nil
}

// exitNotMeasured is bench's and run's exit status when nothing failed but
// some expectations failed only while the machine was busy.
const exitNotMeasured = 3

// addK6Flag adds --k6 PATH (default: k6 from PATH, when there is one).
func addK6Flag(f *pflag.FlagSet, dst *string) {
	f.StringVar(dst, "k6", bench.K6OnPath, "replay every run with real k6 too: the k6 binary; the default takes k6 from PATH if there is one, \"off\" never")
}
