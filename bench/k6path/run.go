package k6path

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/middlebench/middlebench/bench"
	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/internal/atomicfile"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
)

// Options are one user's script through one experiment's path.
type Options struct {
	Experiment string   // the experiment's YAML
	Quick      bool     // its quick vars
	RunName    string   // which run's server and path ("" = the first)
	K6         string   // k6's executable ("" = k6 on PATH)
	Hosts      []string // the hosts the path stands for ("" = the one the script targets)
	Dir        string   // where k6's files and the views go ("" = a new temporary directory, kept)
	Args       []string // k6's command line: run [k6 flags] SCRIPT
	Out        io.Writer
	K6Out      io.Writer // k6's own output, its summary included (nil: Out)
}

// Result is what came back: k6's exit status and files, the server's and
// the path's views, the analyzer's report.
type Result struct {
	ExitCode int // k6's: 0, 99 when a threshold failed, …
	Dir      string
	Route    *route
	Export   *diagnose.Observation // k6's summary export
	Stream   *diagnose.Observation // k6's NDJSON stream (statuses, errors)
	Server   timing.ServerView
	Path     *proxy.PathStats
	Report   diagnose.Report // on the stream, with the server's view
}

// Run serves the experiment's server and path, runs real k6 on the
// user's unchanged script routed into the path, and reports. It returns
// an error wrapping ErrRefused, before k6 runs, for a script that cannot
// go through the path unchanged.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.K6Out == nil {
		o.K6Out = o.Out
	}
	args, err := parseK6Args(o.Args)
	if err != nil {
		return nil, err
	}
	targets, err := scanScript(args.script, args.env)
	if err != nil {
		return nil, err
	}
	if _, err := pickHosts(targets, o.Hosts); err != nil {
		return nil, err // before anything starts, k6 or not
	}
	k6 := o.K6
	if k6 == "" {
		if k6, err = exec.LookPath("k6"); err != nil {
			return nil, fmt.Errorf("no k6 on PATH: install k6 or give its executable with --k6")
		}
	}
	opts, err := inspect(ctx, k6, args)
	if err != nil {
		return nil, err
	}
	e, err := experiment.Load(o.Experiment, o.Quick)
	if err != nil {
		return nil, err
	}
	srv, err := bench.StartServed(ctx, e, o.RunName)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	r := &Result{}
	if r.Route, err = planRoute(targets, o.Hosts, srv.Entry()); err != nil {
		return nil, err
	}
	if r.Dir = o.Dir; r.Dir == "" {
		if r.Dir, err = os.MkdirTemp("", "middlebench-k6-"); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	config, err := r.Route.writeConfig(args.config, r.Dir)
	if err != nil {
		return nil, err
	}
	export, stream := args.export, filepath.Join(r.Dir, "points.json")
	if export == "" {
		export = filepath.Join(r.Dir, "summary.json")
	}
	fmt.Fprintf(o.Out, "middlebench k6: %s through %s (%s), %s → %s by k6's hosts option\n\n",
		args.script, e.ID, o.Experiment, joinHosts(r.Route.Hosts), srv.Entry())
	if r.ExitCode, err = runK6(ctx, srv, k6, args.with(config, export, stream), o.K6Out); err != nil {
		return nil, err
	}
	r.Server = srv.ServerView(context.WithoutCancel(ctx))
	r.Path = srv.PathStats()
	if err := r.read(ctx, export, stream, opts.executor()); err != nil {
		return r, err
	}
	if err := r.saveViews(); err != nil {
		return r, err
	}
	return r, r.write(o.Out)
}

// runK6 runs k6 where the path's entry is reachable and returns its exit
// status. A cancelled ctx interrupts it as Ctrl-C does, so that it still
// writes its files.
func runK6(ctx context.Context, srv *bench.Served, k6 string, args []string, out io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, k6, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), blacklistEnv(os.Getenv("K6_BLACKLIST_IPS")))
	if _, set := os.LookupEnv("K6_NO_USAGE_REPORT"); !set {
		// k6 would otherwise report its use to a host beyond the path; a user
		// who wants it sets K6_NO_USAGE_REPORT=false.
		cmd.Env = append(cmd.Env, "K6_NO_USAGE_REPORT=true")
	}
	if err := srv.Start(cmd); err != nil {
		return 0, fmt.Errorf("k6: %w", err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("k6: %w", err)
	}
	return 0, nil
}

// read reads k6's files and runs the analyzer on the stream, which has
// the statuses the export lacks, with the server's own view.
func (r *Result) read(ctx context.Context, export, stream, executor string) error {
	extra := diagnose.Extra{Server: diagnose.ServerFromView(&r.Server, "the fake server's /_mb/stats"), Executor: executor}
	rd := diagnose.Reader{Open: diagnose.ModelOf(executor) == diagnose.ModelOpen}
	var err error
	if r.Export, err = rd.ReadFile(ctx, export); err != nil {
		return fmt.Errorf("k6's summary export (k6 exited %d): %w", r.ExitCode, err)
	}
	if r.Stream, err = rd.ReadFile(ctx, stream); err != nil {
		return fmt.Errorf("k6's NDJSON stream (k6 exited %d): %w", r.ExitCode, err)
	}
	r.Export.Apply(extra)
	r.Stream.Apply(extra)
	r.Report = diagnose.Analyze(r.Stream, diagnose.DefaultConfig())
	return nil
}

// saveViews writes the server's view and the path's counters beside k6's
// files, for `middlebench analyze --server-stats` later.
func (r *Result) saveViews() error {
	files := map[string]any{"server.json": r.Server}
	if r.Path != nil {
		files["stages.json"] = r.Path
	}
	for name, v := range files {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(filepath.Join(r.Dir, name), b); err != nil {
			return err
		}
	}
	return nil
}
