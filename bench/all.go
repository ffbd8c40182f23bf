package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/bench/report"
)

// Options are what `middlebench bench` and `middlebench run` ask for.
type Options struct {
	Files     []string  // experiment files; default DefaultDir/*.yaml
	Quick     bool      // shorter runs, from each file's quick vars
	Out       io.Writer // the report
	Live      bool      // progress rewritten in place (a terminal)
	Results   string    // RESULTS.md to write, or "" for none
	ChartsDir string    // where the SVG charts go (default: results/ beside Results)

	Observer load.Observer                                // if set, sees every request of every run (the live dashboard)
	OnRun    func(experiment string, r *record.RunResult) // if set, called as each run is diagnosed
	// K6 replays every run with real k6 too: a path, or K6OnPath for k6
	// from PATH when there is one ("" or K6Off for none).
	K6 string
	// K6Dir keeps k6's files of each run (script, summary export, NDJSON
	// stream) in DIR/<id>-<n>/; "" removes them after the replay.
	K6Dir string
}

// Values of Options.K6.
const (
	K6OnPath = "k6"
	K6Off    = "off"
)

// DefaultDir holds the experiments.
const DefaultDir = "experiments"

// ExperimentFiles returns the files to replay: the ones given, or every
// .yaml of dir in name order.
func ExperimentFiles(files []string, dir string) ([]string, error) {
	if len(files) > 0 {
		return files, nil
	}
	found, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no experiments: %s/*.yaml matches nothing (run from the repository's root, or name the files)", dir)
	}
	slices.Sort(found)
	return found, nil
}

// RunAll loads every experiment first (so that a typo fails before
// anything runs), replays them in order, writes RESULTS.md if asked, and
// returns what happened. An interrupted replay still writes what it has.
func RunAll(ctx context.Context, o Options) (*record.Summary, error) {
	defer load.TuneGC()() // the engine's collector setting, as `middlebench load` has it
	files, err := ExperimentFiles(o.Files, DefaultDir)
	if err != nil {
		return nil, err
	}
	var exps []*experiment.Experiment
	for _, f := range files {
		e, err := experiment.Load(f, o.Quick)
		if err != nil {
			return nil, err
		}
		exps = append(exps, e)
	}
	rn := &Runner{Out: o.Out, Live: o.Live, Quick: o.Quick, K6Dir: o.K6Dir, Observer: o.Observer, OnRun: o.OnRun}
	s := &record.Summary{Machine: readMachine(time.Now()), Quick: o.Quick, Started: time.Now(), LoadBefore: loadAverage()}
	if o.K6 != "" && o.K6 != K6Off {
		if rn.K6, s.K6Version, err = findK6(o.K6); err != nil {
			return nil, err
		}
		if rn.K6 == "" {
			fmt.Fprintln(rn.out(), "no k6 on PATH (give --k6 PATH): the replay with real k6 is skipped")
		} else {
			fmt.Fprintf(rn.out(), "each run is replayed with %s (%s) too\n", s.K6Version, rn.K6)
		}
	}
	for _, e := range exps {
		if ctx.Err() != nil {
			break
		}
		x := rn.Run(ctx, e)
		s.Experiments = append(s.Experiments, x)
		if errors.Is(x.Err, ErrTainted) {
			report.PrintSummary(rn.out(), s)
			return s, fmt.Errorf("%s: %w; the replay stopped (later experiments would run in a changed process)", e.ID, x.Err)
		}
	}
	s.Elapsed, s.LoadAfter = time.Since(s.Started), loadAverage()
	report.PrintSummary(rn.out(), s)
	if ctx.Err() != nil {
		// What was measured is printed above; a partial replay does not
		// replace a whole one's RESULTS.md.
		return s, fmt.Errorf("interrupted: %d of %d experiments replayed; %s left as it was", len(s.Experiments), len(exps), orNone(o.Results))
	}
	if o.Results != "" {
		charts := o.ChartsDir
		if charts == "" {
			charts = filepath.Join(filepath.Dir(o.Results), "results")
		}
		if err := report.WriteResults(o.Results, charts, s); err != nil {
			return s, err
		}
		fmt.Fprintf(rn.out(), "wrote %s and its charts in %s/\n", o.Results, charts)
	}
	return s, nil
}

func orNone(path string) string {
	if path == "" {
		return "no results file"
	}
	return path
}
