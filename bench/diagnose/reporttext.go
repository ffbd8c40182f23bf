package diagnose

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
)

// WriteText prints the report for people: what was read, the phase table
// (avg and p95 of each phase, the server's own time and the time outside
// it), the steps of a sweep, then the findings in order with their
// evidence, what to suspect and what to check next.
func (r Report) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	title := r.Source
	if title == "" {
		title = "results"
	}
	fmt.Fprintf(b, "%s (%s): %d requests", title, r.Format, r.Requests)
	if r.Failed > 0 {
		fmt.Fprintf(b, ", %d failed", r.Failed)
	}
	if r.Seconds > 0 {
		fmt.Fprintf(b, " in %.1fs, %.1f req/s", r.Seconds, r.RPS)
	}
	if r.Run.Executor != "" {
		fmt.Fprintf(b, ", %s", r.Run.Executor)
	}
	if r.Run.VUs > 0 {
		fmt.Fprintf(b, ", %d VUs", r.Run.VUs)
	}
	if r.Run.Rate > 0 {
		fmt.Fprintf(b, ", %.0f/s", r.Run.Rate)
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b)
	fmt.Fprintf(b, "  %-16s %12s %12s\n", "phase", "avg", "p95")
	for _, row := range r.Phases.rows() {
		if slices.Contains(r.NotInFile, row.name) {
			fmt.Fprintf(b, "  %-16s %12s %12s\n", row.name, "—", "—")
			continue
		}
		if !row.s.Present() {
			if row.name == "connecting" || row.name == "tls_handshaking" || row.name == "blocked" {
				if r.Phases.Duration.Present() {
					fmt.Fprintf(b, "  %-16s %12s %12s\n", row.name, "0s", "0s")
				}
			}
			continue
		}
		name := row.name
		if name == "outside_server" {
			name = "outside server"
		}
		fmt.Fprintf(b, "  %-16s %12s %12s\n", name, metrics.FormatMs(row.s.Avg), metrics.FormatMs(row.s.P95))
	}
	if !r.Phases.Server.Present() {
		fmt.Fprintln(b, "  (no server time: waiting cannot be split between the server and the path)")
	} else {
		fmt.Fprintln(b, "  outside server = waiting − server time − server queue (p95: difference of p95s)")
	}
	if d := r.Difference; d != nil {
		fmt.Fprintln(b)
		fmt.Fprintf(b, "  %-16s %12s %12s   (this run − baseline, rule 11)\n", "difference", "avg", "p95")
		for _, row := range d.rows() {
			if row.s.Present() {
				fmt.Fprintf(b, "  %-16s %12s %12s\n", row.name, signed(row.s.Avg), signed(row.s.P95))
			}
		}
	}
	if len(r.Steps) > 0 {
		fmt.Fprintln(b)
		fmt.Fprintf(b, "  %-24s %8s %9s %11s %11s %11s %11s %8s\n", "step", "load", "req/s", "dur p95", "waiting", "receiving", "server p95", "dropped")
		for _, s := range r.Steps {
			load := fmt.Sprintf("%.0f VUs", s.VUs)
			if s.Rate > 0 {
				load = fmt.Sprintf("%.0f/s", s.Rate)
			}
			srv := "-"
			if s.ServerTimeP95 > 0 {
				srv = metrics.FormatMs(s.ServerTimeP95)
			}
			fmt.Fprintf(b, "  %-24s %8s %9.1f %11s %11s %11s %11s %8d\n", cut(s.Name, 24), load, s.RPS,
				metrics.FormatMs(s.DurationP95), metrics.FormatMs(s.WaitingAvg), metrics.FormatMs(s.ReceivingAvg), srv, s.Dropped)
		}
	}
	for _, g := range []struct {
		title string
		rows  []GroupRow
	}{{"status", r.ByStatus}, {"name", r.ByName}} {
		if len(g.rows) < 2 { // one status or one name: the phase table says it all
			continue
		}
		fmt.Fprintln(b)
		fmt.Fprintf(b, "  %-32s %9s %8s %11s %11s %11s\n", g.title, "requests", "failed", "dur avg", "dur p95", "waiting")
		for i, row := range g.rows {
			if i == 10 {
				fmt.Fprintf(b, "  … %d more\n", len(g.rows)-10)
				break
			}
			fmt.Fprintf(b, "  %-32s %9d %8d %11s %11s %11s\n", cut(row.Key, 32), row.Requests, row.Failed,
				metrics.FormatMs(row.DurationAvg), metrics.FormatMs(row.DurationP95), metrics.FormatMs(row.WaitingAvg))
		}
	}
	fmt.Fprintln(b)
	fmt.Fprintln(b, "findings (ordered by the time they explain):")
	if len(r.Findings) == 0 {
		fmt.Fprintln(b, "  none named; see the notes")
	}
	for i, f := range r.Findings {
		fmt.Fprintf(b, "\n%d. %s [%s, %s confidence]", i+1, f.Code, f.Severity, f.Confidence)
		if f.ExplainsMs > 0 {
			fmt.Fprintf(b, " explains %s per request", metrics.FormatMs(f.ExplainsMs))
			if len(f.Explains) > 1 {
				var parts []string
				for _, c := range f.Explains {
					parts = append(parts, c.Line+" "+metrics.FormatMs(c.Ms))
				}
				fmt.Fprintf(b, " (%s)", strings.Join(parts, ", "))
			}
		}
		fmt.Fprintln(b)
		fmt.Fprintf(b, "   %s\n", wrap(f.Summary, 90, "   "))
		if len(f.Steps) > 0 {
			fmt.Fprintf(b, "   steps: %s\n", strings.Join(f.Steps, ", "))
		}
		var ev []string
		for _, e := range f.Evidence {
			// The value carries its unit: the name does not repeat it.
			ev = append(ev, fmt.Sprintf("%s=%s", strings.TrimSuffix(e.Name, "_ms"), fmtEvidence(e)))
		}
		fmt.Fprintf(b, "   evidence: %s\n", wrap(strings.Join(ev, "  "), 90, "             "))
		for _, a := range f.Alternatives {
			alt := "could also be: "
			if a.Code != "" {
				alt += a.Code + " — "
			}
			fmt.Fprintf(b, "   %s\n", wrap(alt+a.Why, 90, "     "))
		}
		if len(f.Suspect) > 0 {
			fmt.Fprintln(b, "   suspect first:")
			for _, s := range f.Suspect {
				fmt.Fprintf(b, "     - %s\n", wrap(s, 86, "       "))
			}
		}
		if len(f.Next) > 0 {
			fmt.Fprintln(b, "   check next:")
			for _, s := range f.Next {
				fmt.Fprintf(b, "     - %s\n", wrap(s, 86, "       "))
			}
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(b)
		fmt.Fprintln(b, "notes:")
		for _, n := range r.Notes {
			fmt.Fprintf(b, "  - %s\n", wrap(n, 88, "    "))
		}
	}
	return b.Flush()
}

func signed(v float64) string {
	if v > 0 {
		return "+" + metrics.FormatMs(v)
	}
	return metrics.FormatMs(v)
}

// fmtEvidence prints one number by what its name says it is.
func fmtEvidence(e Fact) string {
	switch {
	case strings.HasSuffix(e.Name, "_ms"):
		return metrics.FormatMs(e.Value)
	case strings.HasSuffix(e.Name, "_share") || strings.HasSuffix(e.Name, "_use"):
		return pct(e.Value)
	case strings.HasSuffix(e.Name, "_Bps"):
		return fmtBytes(e.Value) + "/s"
	case strings.HasPrefix(e.Name, "bytes_"):
		return fmtBytes(e.Value)
	case strings.HasSuffix(e.Name, "_pct"):
		return fmt.Sprintf("%.0f %%", e.Value)
	case e.Value == float64(int64(e.Value)):
		return fmt.Sprintf("%d", int64(e.Value))
	}
	return fmt.Sprintf("%.2f", e.Value)
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// wrap breaks text at spaces to about width columns, indenting new lines.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	col := 0
	for i, w := range strings.Fields(s) {
		n := len([]rune(w))
		if i > 0 {
			if col+1+n > width {
				b.WriteString("\n" + indent)
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}
