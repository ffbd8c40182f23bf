package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/middlebench/middlebench/dashboard"
	"github.com/middlebench/middlebench/internal/atomicfile"
	"github.com/middlebench/middlebench/mystery"
	"github.com/spf13/cobra"
)

// mysteryFlags are the serving command's.
type mysteryFlags struct {
	seed     uint64
	level    string
	stateDir string
	keyFile  string
	practice bool
}

func addStateDir(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "state-dir", mystery.DefaultStateDir(), "where the mystery keeps its record, the k6 script and the answers")
}

// idFlags name a mystery for answer and reveal: --id, or --seed and
// --level for a practice mystery.
type idFlags struct {
	id       string
	seed     uint64
	level    string
	stateDir string
}

func (f *idFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.id, "id", "", "the mystery's id, as its first screen prints it")
	fl.Uint64Var(&f.seed, "seed", 0, "a practice mystery's seed (instead of --id)")
	fl.StringVar(&f.level, "level", "one", "a practice mystery's level (with --seed)")
	addStateDir(cmd, &f.stateDir)
}

func (f *idFlags) resolve(cmd *cobra.Command) (string, *mystery.State, error) {
	st := &mystery.State{Dir: f.stateDir}
	switch {
	case f.id != "" && cmd.Flags().Changed("seed"):
		return "", nil, errors.New("give --id, or --seed and --level for a practice mystery, not both")
	case f.id != "":
		return f.id, st, mystery.ValidID(f.id)
	case cmd.Flags().Changed("seed"):
		l, err := mystery.ParseLevel(f.level)
		if err != nil {
			return "", nil, fmt.Errorf("--level: %w", err)
		}
		return mystery.MysteryID(f.seed, l, ""), st, nil
	}
	return "", nil, errors.New("--id is required (the mystery's first screen prints it)")
}

func newMysteryCmd() *cobra.Command {
	var mf mysteryFlags
	var o mystery.ServeOptions
	dash := new(dashFlags)
	cmd := &cobra.Command{
		Use:   "mystery",
		Short: "Serve a path whose faults are drawn with a seed and a class key; students diagnose it, reveal scores them",
		Long: `mystery starts a fake server and a path in front of it whose faults are drawn,
with a seed and the teacher's class key, from a catalogue: TLS handshake
delays, accept limits, link latency, bandwidth caps, WAF inspection, rate
limits, User-Agent blocking, held requests, a slow server, a worker-pool
backlog, a CPU-bound server. Levels: one (one cause), two (two causes), decoy
(one cause and a device that looks like a cause but does nothing worth naming).

The class key (--key-file, created with a fresh key when missing) keeps the
mystery secret: students get a mystery id, the state files say nothing of
the devices, and only reveal with the key prints them. --practice draws from
the seed alone (self-study: anyone may reveal it).

It prints only where to aim and the commands to answer. Students run the
exercise's load (middlebench load or real k6 with the script it writes),
read the phases beside the server's own time, and answer with finding codes
(middlebench mystery rules: the article's rules, symptom → suspect). Every
answer is kept, revisions included. reveal prints the answer key from the
stages' own counters — which device did what, how many ms of which phase it
explains — and scores each student's last answer, with the rule that would
have found each cause.

Causes: ` + strings.Join(mystery.CatalogueIDs(), ", "),
		Example: `  # the teacher: one mystery for the class, answers through the dashboard's form
  middlebench mystery --seed 12 --level decoy --key-file ~/class.key --dashboard 127.0.0.1:26001

  # a student answers with the id the first screen printed; the teacher reveals
  middlebench mystery answer --id m3fa9c01b22d7 --name ada path-latency
  middlebench mystery reveal --id m3fa9c01b22d7 --key-file ~/class.key

  # self-study: a practice mystery, drawn from the seed alone
  middlebench mystery --practice --seed 7 --level one
  middlebench mystery answer --seed 7 --level one --name ada path-latency
  middlebench mystery reveal --seed 7 --level one`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := mystery.ParseLevel(mf.level)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("--level: %w", err)}
			}
			if dash.addr != "" {
				// Refused before anything serves: a mystery without the
				// dashboard it was asked for is not the class's mystery.
				if err := dashboard.CheckAddr(dash.addr, dash.allowRemote); err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--dashboard: %w", err)}
				}
			}
			st := &mystery.State{Dir: mf.stateDir}
			o.Seed, o.Level, o.State, o.Out = mf.seed, l, st, cmd.OutOrStdout()
			if !mf.practice {
				if o.KeyFile = mf.keyFile; o.KeyFile == "" {
					o.KeyFile = filepath.Join(mf.stateDir, "class.key")
				}
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			var ld *liveDash
			var dashErr error
			o.Started = func(r *mystery.Running) {
				// The class sees the server's own view (the APM) and the
				// form; never the stages, which would give the answer away.
				ld, dashErr = dash.start(ctx, cmd.ErrOrStderr(), "mystery "+r.M.ID, mysteryPage(st, r))
				if dashErr != nil {
					cancel()
				}
			}
			serveErr := mystery.Serve(ctx, o)
			if dashErr != nil {
				return &exitError{code: 2, err: fmt.Errorf("--dashboard: %w", dashErr)}
			}
			if ld != nil {
				return errors.Join(serveErr, ld.finish(context.WithoutCancel(cmd.Context()), nil))
			}
			return serveErr
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&mf.seed, "seed", 1, "the mystery's seed: with the same class key, the same seed draws the same path on every machine")
	f.StringVar(&mf.level, "level", "one", "one (one cause), two (two causes) or decoy (a cause and a device that only looks like one)")
	addStateDir(cmd, &mf.stateDir)
	f.StringVar(&mf.keyFile, "key-file", "", "the teacher's class key (default STATE-DIR/class.key; created with a fresh key when missing)")
	f.BoolVar(&mf.practice, "practice", false, "draw from the seed alone, without a class key (self-study: anyone may reveal it)")
	dash.add(cmd)
	f.StringVar(&o.Listen, "listen", "", "the path's entry, e.g. 127.0.0.1:26100 (default a free loopback port)")
	f.StringVar(&o.ServerListen, "server-listen", "", "the fake server's address, e.g. 127.0.0.1:26201 (default a free loopback port)")
	f.DurationVar(&o.Duration, "duration", 0, "stop after this long (default: until Ctrl-C)")
	cmd.AddCommand(newMysteryAnswerCmd(), newMysteryRevealCmd(), newMysteryRulesCmd())
	return cmd
}

// mysteryPage is what a mystery's dashboard shows and takes: the
// server's own view and the answer form, whose refusals become statuses.
func mysteryPage(st *mystery.State, r *mystery.Running) dashboard.Sources {
	answer := func(name, codes, token string) (string, error) {
		_, tok, err := mystery.Submit(st, r.M.ID, name, []string{codes}, mystery.ViaWeb, token)
		switch {
		case errors.Is(err, mystery.ErrNameTaken):
			return "", &dashboard.AnswerError{Status: http.StatusConflict, Err: err}
		case errors.Is(err, mystery.ErrFull):
			return "", &dashboard.AnswerError{Status: http.StatusInsufficientStorage, Err: err}
		}
		return tok, err
	}
	count := func() int { n, _ := st.CountAnswers(r.M.ID); return n }
	return dashboard.Sources{Server: r.Server.Stats, Answer: answer, Answers: count}
}

func newMysteryAnswerCmd() *cobra.Command {
	var idf idFlags
	var name string
	cmd := &cobra.Command{
		Use:   "answer CODE...",
		Short: "Record a diagnosis: the finding codes that name the mystery's causes",
		Long: `answer records a diagnosis of the mystery --id names (kept in --state-dir).
Every answer is kept: a second answer under the same name is a revision,
and reveal scores the last.`,
		Example: `  middlebench mystery answer --id m3fa9c01b22d7 --name ada path-latency rate-limited
  middlebench mystery answer --state-dir /srv/lab --id m3fa9c01b22d7 --name ada server-slow`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, st, err := idf.resolve(cmd)
			if err != nil {
				return err
			}
			a, _, err := mystery.Submit(st, id, name, args, mystery.ViaCLI, "")
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "recorded for %s: %s (mystery %s)\n", a.Name, strings.Join(a.Codes, " "), id)
			return nil
		},
	}
	idf.add(cmd)
	cmd.Flags().StringVar(&name, "name", "", "who answers (required; a later answer under the same name is kept as a revision)")
	return cmd
}

func newMysteryRevealCmd() *cobra.Command {
	var idf idFlags
	var asJSON bool
	var keyFile, htmlFile string
	cmd := &cobra.Command{
		Use:   "reveal",
		Short: "Print the answer key from the stages' counters and score every answer (the teacher's: needs the class key)",
		Example: `  middlebench mystery reveal --id m3fa9c01b22d7 --key-file ~/class.key
  middlebench mystery reveal --seed 7 --level one      # a practice mystery`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			id, st, err := idf.resolve(cmd)
			if err != nil {
				return err
			}
			var key mystery.ClassKey
			if keyFile != "" {
				if key, err = mystery.ReadClassKey(keyFile); err != nil {
					return fmt.Errorf("--key-file: %w", err)
				}
			}
			if htmlFile == "" {
				return mystery.Reveal(cmd.OutOrStdout(), st, id, key, asJSON)
			}
			if asJSON {
				return errors.New("--json and --html: choose one")
			}
			// Written whole or not at all; nothing is written when the
			// key is missing or wrong.
			var page bytes.Buffer
			if err := mystery.RevealAs(&page, st, id, key, mystery.AsHTML); err != nil {
				return err
			}
			if err := atomicfile.WriteBytes(htmlFile, page.Bytes()); err != nil {
				return fmt.Errorf("--html: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reveal written to %s\n", htmlFile)
			return nil
		},
	}
	idf.add(cmd)
	cmd.Flags().StringVar(&htmlFile, "html", "", "write the reveal as one HTML page (for the projector) to this file")
	cmd.Flags().StringVar(&keyFile, "key-file", "", "the class key the mystery was drawn with (the teacher's)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the key and the verdicts as JSON")
	return cmd
}

func newMysteryRulesCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "rules",
		Short:   "Print the article's diagnosis rules as a card: symptom → suspect first (the rules reveal cites)",
		Example: `  middlebench mystery rules`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mystery.WriteRules(cmd.OutOrStdout())
			return nil
		},
	}
}
