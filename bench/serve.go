package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/middlebench/middlebench/bench/experiment"
)

// Serve starts the server and the path of one run and keeps them until ctx
// ends, so that another generator (real k6, a browser, curl) can be aimed
// at them. With asJSON it prints one line of JSON (entry, server, admin)
// for a parent process; otherwise a few lines for a person.
func Serve(ctx context.Context, e *experiment.Experiment, runName string, w io.Writer, asJSON bool) error {
	rs := &e.Runs[0]
	if runName != "" {
		var err error
		if rs, err = e.RunNamed(runName); err != nil {
			return err
		}
	}
	t, err := startLocal(ctx, e.ServerFor(rs), e.PathFor(rs), true)
	if err != nil {
		return err
	}
	defer t.close()
	info := t.info()
	if asJSON {
		b, _ := json.Marshal(info) // plain strings
		fmt.Fprintln(w, string(b))
	} else {
		printServeHelp(w, e, rs, info)
	}
	<-ctx.Done()
	if !asJSON {
		fmt.Fprintf(w, "server: %s\n", t.srv.Summary())
		if t.path != nil {
			for _, l := range t.path.Summary() {
				fmt.Fprintln(w, l)
			}
		}
	}
	return nil
}

func printServeHelp(w io.Writer, e *experiment.Experiment, rs *experiment.RunSpec, info serveInfo) {
	fmt.Fprintf(w, "%s › %s — serving until Ctrl-C\n", e.ID, rs.Name)
	fmt.Fprintf(w, "  aim the load at   %s\n", info.Entry)
	fmt.Fprintf(w, "  the server        %s   (its own view: %s/_mb/stats)\n", info.Server, info.Server)
	if info.Admin != "" {
		fmt.Fprintf(w, "  the path's admin  %s/stats   (answer key: %s/ledger)\n", info.Admin, info.Admin)
	}
	if info.Gen != "" {
		fmt.Fprintf(w, "  through the wire  from namespace %s (the entry is only reachable there)\n", info.Gen)
	}
	fmt.Fprintf(w, "\n  with real k6 (the script generated from the same YAML):\n")
	fmt.Fprintf(w, "    middlebench run %s --k6-script --run %q > run.js\n", e.File, rs.Name)
	fmt.Fprintf(w, "    %s\n", k6CommandFor(info, "run.js", "--summary-export=summary.json").shell("k6"))
	fmt.Fprintf(w, "    curl -s %s/_mb/stats > server.json\n", info.Server)
	fmt.Fprintf(w, "    middlebench analyze summary.json --server-stats server.json\n\n")
}
