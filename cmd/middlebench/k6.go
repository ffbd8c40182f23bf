package main

import (
	"errors"
	"fmt"

	"github.com/middlebench/middlebench/bench/k6path"
	"github.com/spf13/cobra"
)

func newK6Cmd() *cobra.Command {
	o := k6path.Options{}
	cmd := &cobra.Command{
		Use:   "k6 EXPERIMENT.yaml [--run NAME] -- run [k6 flags] SCRIPT.js",
		Short: "Run your own k6 script, unchanged, with real k6 through an experiment's path",
		Long: `k6 starts the server and the path of one run of an experiment (--run, default
the first) on 127.0.0.1 and runs real k6 (from PATH, or --k6) on your script
as it is: the words after -- are k6's own command line.

The script's requests reach the path through k6's own hosts option, in a
--config file middlebench writes (your --config, or k6's default config
file, merged into it): the host the script targets resolves to the path's
first box, so its URLs, its Host header and its TLS name stay as you wrote
them. The path's host is the one host the script's URLs name, or the hosts
--host names. Any other host written in the script or in a -e value is
refused before k6 starts, with the host named; a host built at run time
cannot leave the machine either, nor be looked up (k6's hosts maps every
other name to 0.0.0.0, and its blacklistIPs holds every address but
loopback's: k6's error code 1110). A TLS entry's certificate is the loopback's own, so k6 is told
insecureSkipTLSVerify for it.

Then it prints what k6 counted, what the server counted, what each box did
and the analyzer's findings, and keeps k6's summary export, its NDJSON
stream, the server's view and the stages' counters in --dir.

Exit status: k6's own (99 when a threshold failed); 104 when the script was
refused (nothing sent).`,
		Example: `  middlebench k6 experiments/e0-full-summary.yaml -- run script.js
  middlebench k6 experiments/e5-rate-limit.yaml --dir out -- run --vus 20 -d 30s script.js
  middlebench k6 path.yaml --host api.example.com --k6 ~/bin/k6 -- run -e BASE=https://api.example.com script.js
  middlebench analyze out/points.json --server-stats out/server.json   # again, later`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return fmt.Errorf("want EXPERIMENT.yaml -- run [k6 flags] SCRIPT.js")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Experiment, o.Args = args[0], args[1:]
			o.Out = cmd.OutOrStdout()
			r, err := k6path.Run(cmd.Context(), o)
			if errors.Is(err, k6path.ErrRefused) {
				return &exitError{code: 104, err: err}
			}
			if err != nil && r != nil && r.ExitCode != 0 {
				return &exitError{code: r.ExitCode, err: err} // k6 failed before writing its files
			}
			if err != nil {
				return err
			}
			if r.ExitCode != 0 {
				return &exitError{code: r.ExitCode, err: fmt.Errorf("k6 exited %d", r.ExitCode)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.RunName, "run", "", "which run's server and path (default the first)")
	f.BoolVar(&o.Quick, "quick", false, "the experiment's quick vars")
	f.StringVar(&o.K6, "k6", "", "k6's executable (default k6 on PATH)")
	f.StringSliceVar(&o.Hosts, "host", nil, "a host the path stands for (default the one host the script's URLs name); repeat for several")
	f.StringVar(&o.Dir, "dir", "", "where k6's files, the server's view and the stages' counters go (default a new temporary directory, kept)")
	return cmd
}
