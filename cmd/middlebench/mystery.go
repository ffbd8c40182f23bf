package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/dashboard"
	"github.com/middlebench/middlebench/teach/mystery"
	"github.com/spf13/cobra"
)

// mysteryFlags are shared by mystery and its subcommands.
type mysteryFlags struct {
	seed     uint64
	level    string
	stateDir string
}

func (m *mysteryFlags) add(cmd *cobra.Command, persistent bool) {
	f := cmd.Flags()
	if persistent {
		f = cmd.PersistentFlags()
	}
	f.Uint64Var(&m.seed, "seed", 1, "the mystery's seed: the same seed draws the same path on every machine")
	f.StringVar(&m.level, "level", "one", "one (one cause), two (two causes) or decoy (a cause and a device that only looks like one)")
	f.StringVar(&m.stateDir, "state-dir", mystery.DefaultStateDir(), "where the mystery keeps its counters, the k6 script and the answers")
}

func (m *mysteryFlags) resolve() (mystery.Level, *mystery.State, error) {
	l, err := mystery.ParseLevel(m.level)
	if err != nil {
		return "", nil, fmt.Errorf("--level: %w", err)
	}
	return l, &mystery.State{Dir: m.stateDir}, nil
}

func newMysteryCmd() *cobra.Command {
	var mf mysteryFlags
	var o mystery.ServeOptions
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "mystery",
		Short: "Serve a path whose faults are drawn with a seed; students diagnose it, reveal scores them",
		Long: `mystery starts a fake server and a path in front of it whose faults are drawn,
with a seed, from a catalogue: TLS handshake delays, accept limits, link
latency, bandwidth caps, WAF inspection, rate limits, User-Agent blocking,
held requests, a slow server, a worker-pool backlog, a CPU-bound server.
Levels: one (one cause), two (two causes), decoy (one cause and a device that
looks like a cause but does nothing worth naming).

It prints only where to aim. Students run the exercise's load (middlebench
load or real k6 with the script it writes), read the phases beside the
server's own time, and answer with finding codes; reveal prints the answer
key from the stages' own counters — which device did what, how many ms of
which phase it explains — and scores every answer, with the article's rule
that would have found each cause.

Causes: ` + strings.Join(mystery.CatalogueIDs(), ", "),
		Example: `  # the teacher hands out seeds; each student serves their own
  middlebench mystery --seed 7 --level one --listen 127.0.0.1:26100

  # a student's diagnosis, then the key and the scores
  middlebench mystery answer --seed 7 --level one --name ada path-latency
  middlebench mystery reveal --seed 7 --level one

  # one mystery for the whole class, answers through the dashboard's form
  middlebench mystery --seed 12 --level decoy --dashboard 127.0.0.1:26001`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, st, err := mf.resolve()
			if err != nil {
				return err
			}
			o.Seed, o.Level, o.State, o.Out = mf.seed, l, st, cmd.OutOrStdout()
			var ld *liveDash
			o.Started = func(r *mystery.Running) {
				// The class sees the server's own view (the APM) and the
				// form; never the stages, which would give the answer away.
				ld, err = dash.start(cmd.Context(), cmd.ErrOrStderr(), fmt.Sprintf("mystery seed %d, level %s", o.Seed, l),
					dashboard.Sources{Server: r.Server.Stats, Answer: func(name, codes string) error {
						_, err := mystery.Submit(st, o.Seed, l, name, []string{codes})
						return err
					}})
			}
			serveErr := mystery.Serve(cmd.Context(), o)
			if err != nil {
				return err
			}
			if ld != nil {
				return errors.Join(serveErr, ld.finish(context.WithoutCancel(cmd.Context()), nil))
			}
			return serveErr
		},
	}
	mf.add(cmd, true)
	dash.add(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", "", "the path's entry, e.g. 127.0.0.1:26100 (default a free loopback port)")
	f.StringVar(&o.ServerListen, "server-listen", "", "the fake server's address, e.g. 127.0.0.1:26201 (default a free loopback port)")
	f.DurationVar(&o.Duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	cmd.AddCommand(newMysteryAnswerCmd(&mf), newMysteryRevealCmd(&mf))
	return cmd
}

func newMysteryAnswerCmd(mf *mysteryFlags) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:     "answer CODE...",
		Short:   "Record a diagnosis: the finding codes that name the mystery's causes",
		Example: `  middlebench mystery answer --seed 7 --level two --name ada path-latency rate-limited`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, st, err := mf.resolve()
			if err != nil {
				return err
			}
			a, err := mystery.Submit(st, mf.seed, l, name, args)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "recorded for %s: %s (seed %d, level %s)\n", a.Name, strings.Join(a.Codes, " "), mf.seed, l)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "who answers (a later answer under the same name replaces the earlier)")
	return cmd
}

func newMysteryRevealCmd(mf *mysteryFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "reveal",
		Short:   "Print the answer key from the stages' counters and score every answer",
		Example: `  middlebench mystery reveal --seed 7 --level two`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, st, err := mf.resolve()
			if err != nil {
				return err
			}
			return mystery.Reveal(cmd.OutOrStdout(), st, mf.seed, l, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the key and the verdicts as JSON")
	return cmd
}
