package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// phaseColumns are the phases every table shows, with how to read each
// from a run: a metric and a stat, or the time outside the server.
var phaseColumns = []struct{ head, ref string }{
	{"blocked", "http_req_blocked"},
	{"connecting", "http_req_connecting"},
	{"tls", "http_req_tls_handshaking"},
	{"sending", "http_req_sending"},
	{"waiting", "http_req_waiting"},
	{"receiving", "http_req_receiving"},
	{"duration", "http_req_duration"},
	{"server", "server_time"},
	{"queue", "server_queue"},
	{"outside", "outside"},
}

// phaseValue reads one phase column (ms) of a run, NaN when absent.
func phaseValue(r *record.RunResult, ref, stat string) float64 {
	q := ref + " " + stat
	if ref == "outside" {
		q = "outside " + stat
	}
	v, err := r.Lookup(q)
	if err != nil {
		return math.NaN()
	}
	return v
}

// PrintExperiment writes the terminal report of one experiment.
func PrintExperiment(w io.Writer, x *record.ExperimentResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "  run\treqs\tfailed\tTPS"
	for _, c := range phaseColumns {
		head += "\t" + c.head
	}
	fmt.Fprintln(tw, head+"\t")
	for _, r := range x.Runs {
		row := fmt.Sprintf("  %s\t%d\t%s\t%.0f", r.Spec.Name, r.Result.Requests, pct(r.Result.Failed, r.Result.Requests), tps(r))
		for _, c := range phaseColumns {
			row += "\t" + metrics.FormatMs(phaseValue(r, c.ref, "avg"))
		}
		fmt.Fprintln(tw, row+"\t")
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "  (averages; server = the server's own time, queue = its wait for a worker, outside = waiting − both)")
	for _, r := range x.Runs {
		fmt.Fprintf(w, "  %s: %s", r.Spec.Name, codesOrNone(r.Report.Codes()))
		if r.Pinned != "" {
			fmt.Fprintf(w, "  [%s]", r.Pinned)
		}
		fmt.Fprintln(w)
	}
	printDisturbance(w, x)
	passed, failed, busy := 0, 0, 0
	for _, r := range x.Runs {
		for _, c := range r.Checks {
			switch {
			case c.OK:
				passed++
			case c.Failed():
				failed++
			case c.Busy:
				busy++
			}
		}
	}
	fmt.Fprintf(w, "  %s: %d checks passed, %d failed", x.Outcome().Mark(), passed, failed)
	if busy > 0 {
		fmt.Fprintf(w, ", %d not measured (failed while the machine was busy)", busy)
	}
	fmt.Fprintf(w, " (%s)\n", x.Elapsed.Round(100*time.Millisecond))
	for _, f := range x.Failures() {
		fmt.Fprintln(w, "  ✗ "+f)
	}
	for _, f := range x.NotMeasured() {
		fmt.Fprintln(w, "  ⏸ "+f)
	}
	for _, r := range x.K6 {
		for _, c := range r.Checks {
			if c.Skipped != "" {
				fmt.Fprintf(w, "  ⏭ %s / run %q with k6: %s — %s\n", x.Exp.ID, r.Spec.Name, c.What, c.Skipped)
			}
		}
	}
}

func tps(r *record.RunResult) float64 {
	v, err := r.Lookup("tps")
	if err != nil {
		return 0
	}
	return v
}

func codesOrNone(codes []string) string {
	if len(codes) == 0 {
		return "(no findings)"
	}
	return strings.Join(codes, ", ")
}

func pct(n, of int64) string {
	if of == 0 {
		return metrics.NoValue
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// printDisturbance says, per run (and step of a sweep), what other
// processes took of the CPUs and what was stolen, and why runs were
// measured again.
func printDisturbance(w io.Writer, x *record.ExperimentResult) {
	var parts []string
	for _, r := range x.Runs {
		p := fmt.Sprintf("%s %s", r.Spec.Name, r.RunDisturbance())
		if st := r.StepsDisturbance(); st != "" {
			p += " (steps " + st + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  machine (of the CPUs, beside this experiment): %s\n", strings.Join(parts, "; "))
	}
	for _, n := range x.Remeasured {
		fmt.Fprintln(w, "  ↻ "+n)
	}
}

// PrintSummary writes the closing lines of a replay: each experiment's
// verdict, the counts, and every failure and check not measured.
func PrintSummary(w io.Writer, s *record.Summary) {
	fmt.Fprintf(w, "\n== %d experiments in %s", len(s.Experiments), s.Elapsed.Round(time.Second))
	if s.Quick {
		fmt.Fprint(w, " (quick)")
	}
	fmt.Fprintln(w)
	for _, x := range s.Experiments {
		fmt.Fprintf(w, "  %-12s %-6s %s\n", x.Outcome().Mark(), x.Exp.ID, x.Exp.Title)
	}
	p, f, n := s.Counts()
	fmt.Fprintf(w, "  %d PASS, %d FAIL, %d NOT MEASURED (a failure while other processes took ≥ %.0f %% of the CPUs is measured again, up to %d times in all; then not measured)\n",
		p, f, n, record.BusyThreshold, record.MaxAttempts)
	if f := s.Failures(); len(f) > 0 {
		fmt.Fprintf(w, "\n%d expectations failed:\n  %s\n", len(f), strings.Join(f, "\n  "))
	}
	if m := s.NotMeasured(); len(m) > 0 {
		fmt.Fprintf(w, "\n%d expectations not measured:\n  %s\n", len(m), strings.Join(m, "\n  "))
	}
}
