package report

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/internal/atomicfile"
)

// WriteResults writes RESULTS.md — the article side by side with this
// machine's run — and its charts as SVG files in chartsDir. Every number
// comes from s; nothing is copied from an earlier run.
func WriteResults(path, chartsDir string, s *record.Summary) error {
	if err := os.MkdirAll(chartsDir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	rel, err := filepath.Rel(filepath.Dir(path), chartsDir)
	if err != nil {
		rel = chartsDir
	}
	var b bytes.Buffer
	writeHeader(&b, s)
	for _, x := range s.Experiments {
		charts, err := drawCharts(x, chartsDir)
		if err != nil {
			return err
		}
		writeExperiment(&b, x, charts, rel)
	}
	writeFidelity(&b, s)
	if err := atomicfile.WriteBytes(path, b.Bytes()); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

func writeHeader(b *bytes.Buffer, s *record.Summary) {
	m := s.Machine
	fmt.Fprintf(b, "# middlebench results\n\n")
	fmt.Fprintf(b, "Written by `make run` (`middlebench bench`) on %s", m.Date)
	if s.K6Version != "" {
		fmt.Fprintf(b, ", with %s replaying every run beside the engine (`--k6`; see the last section)", s.K6Version)
	}
	if s.Quick {
		b.WriteString(" in **quick** mode (shortened runs)")
	}
	fmt.Fprintf(b, ", in %s. Every number below comes from that run.\n\n", s.Elapsed.Round(time.Second))
	fmt.Fprintf(b, "Machine: %s, %d CPUs, %d GiB, %s", m.CPU, m.Cores, m.MemoryGiB, m.OS)
	if m.Kernel != "" {
		fmt.Fprintf(b, " (kernel %s)", m.Kernel)
	}
	fmt.Fprintf(b, "; %s. The generator, the middleboxes and the server share these CPUs on loopback unless an experiment says it pinned them apart.\n\n", m.Go)
	b.WriteString("Times are milliseconds unless marked (µs, s). *server* is the time the server reports for its work (Server-Timing app), *queue* its wait for a worker (queue), *outside* = waiting − server − queue: the part of waiting the server did not see. The article's figures come from k6 v1.4.2 on a 12-core Mac against a Python server; ours from middlebench's engine, which measures phases as k6 does.\n\n")

	writeVerdicts(b, s)
	b.WriteString("## Summary\n\n| experiment | the article | ours | findings | expectations |\n|---|---|---|---|---|\n")
	for _, x := range s.Experiments {
		article, ours := "", ""
		if len(x.Exp.Article) > 0 {
			f := x.Exp.Article[0]
			article = f.Label + ": " + f.Article
			ours = figure(x, f)
		}
		fmt.Fprintf(b, "| [%s](#%s) | %s | %s | %s | %s |\n", mdEscape(x.Exp.Title), anchor(x.Exp.ID), mdEscape(article), ours, mdEscape(codeSummary(x)), verdictOf(x))
	}
	b.WriteString("\n")
}

// writeVerdicts says which verdicts the document holds and what each
// mark means, so that no ❌ or ⏸ below goes unexplained.
func writeVerdicts(b *bytes.Buffer, s *record.Summary) {
	p, f, n := s.Counts()
	fmt.Fprintf(b, "**Verdicts: %d PASS, %d FAIL, %d not measured** of %d experiments (engine", p, f, n, len(s.Experiments))
	if s.K6Version != "" {
		b.WriteString(" and k6")
	}
	fmt.Fprintf(b, "; load average %s before, %s after).", s.LoadBefore, s.LoadAfter)
	fmt.Fprintf(b, " ✅ every expectation held; ❌ one failed while the machine was quiet (other processes and the hypervisor took under %.0f %% of the CPUs over what it read), "+
		"or where load cannot have put it (a time below its band, work done above it, an exact count off), or the run could not complete; "+
		"⏸ not measured: every failure came while other processes took at least %.0f %% of the CPUs, in each of up to %d attempts.", record.BusyThreshold, record.BusyThreshold, record.MaxAttempts)
	for _, x := range s.Experiments {
		for _, f := range x.Failures() {
			fmt.Fprintf(b, "\n- ❌ %s", mdEscape(f))
		}
		for _, m := range x.NotMeasured() {
			fmt.Fprintf(b, "\n- ⏸ %s", mdEscape(m))
		}
	}
	b.WriteString("\n\n")
}

func codeSummary(x *record.ExperimentResult) string {
	var parts []string
	for _, r := range x.Runs {
		parts = append(parts, r.Spec.Name+": "+codesOrNone(r.Report.Codes()))
	}
	return strings.Join(parts, "; ")
}

func verdictOf(x *record.ExperimentResult) string {
	passed, total := 0, 0
	for _, r := range x.Runs {
		for _, c := range r.Checks {
			total++
			if c.OK {
				passed++
			}
		}
	}
	switch x.Outcome() {
	case record.OutcomePass:
		return fmt.Sprintf("✅ %d/%d", passed, total)
	case record.OutcomeNotMeasured:
		return fmt.Sprintf("⏸ not measured (%d/%d; the rest failed while the machine was busy)", passed, total)
	}
	if x.Err != nil {
		return "❌ " + mdEscape(x.Err.Error())
	}
	return fmt.Sprintf("❌ %d/%d", passed, total)
}

// figure prints our value of an article figure.
func figure(x *record.ExperimentResult, f experiment.Figure) string {
	if f.Run == "" {
		return metrics.NoValue
	}
	for _, r := range x.Runs {
		if r.Spec.Name != f.Run {
			continue
		}
		v, err := figureValue(r, f.Metric)
		if err != nil {
			return "n/a"
		}
		return formatUnit(v, f)
	}
	return "not run"
}

// figureValue reads a figure's metric: a reference, or arithmetic over
// references such as "@{http_req_blocked avg} + @{http_req_duration avg}".
func figureValue(r *record.RunResult, metric string) (float64, error) {
	if !strings.Contains(metric, "@{") {
		return r.Lookup(metric)
	}
	x, err := experiment.WithRefs(metric, r.Lookup)
	if err != nil {
		return 0, err
	}
	return experiment.EvalExpr(x)
}

func formatUnit(v float64, f experiment.Figure) string {
	switch f.Unit {
	case "count":
		return fmt.Sprintf("%.0f", v)
	case "/s":
		return fmt.Sprintf("%.1f/s", v)
	case "%":
		return fmt.Sprintf("%.1f %%", 100*v)
	case "", "ms":
		if strings.Contains(f.Metric, "tps") || strings.HasSuffix(f.Metric, " count") || strings.HasPrefix(f.Metric, "server requests") {
			return record.FmtNum(v)
		}
		return metrics.FormatMs(v)
	}
	return record.FmtNum(v) + " " + f.Unit
}

func writeExperiment(b *bytes.Buffer, x *record.ExperimentResult, charts []string, rel string) {
	e := x.Exp
	fmt.Fprintf(b, "## <a id=\"%s\"></a>%s\n\n", anchor(e.ID), mdEscape(e.Title))
	fmt.Fprintf(b, "> %s\n\n", strings.TrimSpace(e.Claim))
	fmt.Fprintf(b, "File: [`%s`](%s) · %s · %s\n\n", filepath.Base(e.File), filepath.ToSlash(e.File), verdictOf(x), x.Elapsed.Round(100*time.Millisecond))
	if x.Err != nil {
		fmt.Fprintf(b, "**Did not complete:** %s\n\n", mdEscape(x.Err.Error()))
	}
	if len(x.Runs) == 0 {
		return
	}
	writePhaseTable(b, x)
	writeDisturbance(b, x)
	for _, c := range charts {
		fmt.Fprintf(b, "![%s](%s)\n\n", mdEscape(e.Title), filepath.ToSlash(filepath.Join(rel, c)))
	}
	writeDirectDiff(b, x)
	writeSteps(b, x)
	if len(e.Article) > 0 {
		b.WriteString("**The article's figures and ours**\n\n| figure | the article | ours | run |\n|---|---|---|---|\n")
		for _, f := range e.Article {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", mdEscape(f.Label), mdEscape(f.Article), figure(x, f), mdEscape(f.Run))
		}
		b.WriteString("\n")
	}
	if d := strings.TrimSpace(e.Differs); d != "" {
		fmt.Fprintf(b, "*Why ours differs:* %s\n\n", d)
	}
	writeStages(b, x)
	writeFindings(b, x)
	writeChecks(b, x)
}

func writePhaseTable(b *bytes.Buffer, x *record.ExperimentResult) {
	b.WriteString("**Phases per run** (avg / p95)\n\n| run | requests | failed | req/s |")
	for _, c := range phaseColumns {
		fmt.Fprintf(b, " %s |", c.head)
	}
	b.WriteString("\n|---|--:|--:|--:|" + strings.Repeat("--:|", len(phaseColumns)) + "\n")
	for _, r := range x.Runs {
		fmt.Fprintf(b, "| %s | %d | %s | %.1f |", mdEscape(r.Spec.Name), r.Result.Requests, pct(r.Result.Failed, r.Result.Requests), tps(r))
		for _, c := range phaseColumns {
			fmt.Fprintf(b, " %s / %s |", metrics.FormatMs(phaseValue(r, c.ref, "avg")), metrics.FormatMs(phaseValue(r, c.ref, "p(95)")))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, r := range x.Runs {
		if r.Pinned != "" {
			fmt.Fprintf(b, "Isolation (%s): %s.\n\n", mdEscape(r.Spec.Name), r.Pinned)
			break
		}
	}
}

// writeDisturbance says what other processes took of the CPUs during each
// run, and why runs were measured again.
func writeDisturbance(b *bytes.Buffer, x *record.ExperimentResult) {
	var parts []string
	for _, r := range x.Runs {
		parts = append(parts, fmt.Sprintf("*%s* %s", mdEscape(r.Spec.Name), r.RunDisturbance()))
	}
	for _, r := range x.K6 {
		parts = append(parts, fmt.Sprintf("*%s* with k6 %s", mdEscape(r.Spec.Name), r.RunDisturbance()))
	}
	fmt.Fprintf(b, "The machine beside each run (of its CPUs): %s.\n\n", strings.Join(parts, "; "))
	for _, n := range x.Remeasured {
		fmt.Fprintf(b, "- Measured again: %s\n", mdEscape(n))
	}
	if len(x.Remeasured) > 0 {
		b.WriteString("\n")
	}
}

// writeDirectDiff is rule 11's table: the baseline straight at the server
// against each run through the path, phase by phase.
func writeDirectDiff(b *bytes.Buffer, x *record.ExperimentResult) {
	var base *record.RunResult
	for _, r := range x.Runs {
		if r.Spec.Direct && r.PathCfg == nil && len(x.Runs) > 1 && base == nil && hasPathRun(x) {
			base = r
		}
	}
	if base == nil {
		return
	}
	for _, r := range x.Runs {
		if r == base || r.PathCfg == nil {
			continue
		}
		fmt.Fprintf(b, "**Straight at the server vs %s** (avg)\n\n| phase | %s | %s | difference |\n|---|--:|--:|--:|\n", mdEscape(r.Spec.Name), mdEscape(base.Spec.Name), mdEscape(r.Spec.Name))
		for _, c := range phaseColumns {
			a, p := phaseValue(base, c.ref, "avg"), phaseValue(r, c.ref, "avg")
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.head, metrics.FormatMs(a), metrics.FormatMs(p), signedMs(p-a))
		}
		b.WriteString("\n")
	}
}

func hasPathRun(x *record.ExperimentResult) bool {
	for _, r := range x.Runs {
		if r.PathCfg != nil {
			return true
		}
	}
	return false
}

func writeSteps(b *bytes.Buffer, x *record.ExperimentResult) {
	for _, r := range x.Runs {
		steps := r.Doc.Steps
		if len(steps) < 2 {
			continue
		}
		fmt.Fprintf(b, "**Steps of %s**\n\n| step | target | req/s | duration p95 | waiting avg | receiving avg | server p95 | outside avg | dropped | failed | generator CPU | other processes, stolen |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", mdEscape(r.Spec.Name))
		for i := range steps {
			q := func(ref string) float64 {
				v, err := r.Lookup(fmt.Sprintf("step %d %s", i+1, ref))
				if err != nil {
					return math.NaN()
				}
				return v
			}
			target := fmt.Sprintf("%d VUs", steps[i].VUs)
			if steps[i].Rate > 0 {
				target = fmt.Sprintf("%.0f/s", steps[i].Rate)
			}
			cpu := metrics.NoValue
			if c := steps[i].GeneratorCPU; c != nil {
				cpu = fmt.Sprintf("%.0f %%", c.Percent)
			}
			fmt.Fprintf(b, "| %d | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", i+1, target, q("tps"),
				metrics.FormatMs(q("http_req_duration p(95)")), metrics.FormatMs(q("http_req_waiting avg")), metrics.FormatMs(q("http_req_receiving avg")),
				metrics.FormatMs(q("server_time p(95)")), metrics.FormatMs(q("outside avg")), countOr(q("dropped_iterations count")),
				pctOf(q("http_req_failed rate")), cpu, r.StepDisturbance(&steps[i]).Pair())
		}
		b.WriteString("\n")
	}
}

func writeStages(b *bytes.Buffer, x *record.ExperimentResult) {
	header := false
	for _, r := range x.Runs {
		if r.Path == nil {
			continue
		}
		if !header {
			b.WriteString("**What each stage did** (its own counters)\n\n| run | box | stage | seen | passed | rejected | added delay avg / p95 | queued avg | bytes | other |\n|---|---|---|--:|--:|--:|--:|--:|--:|---|\n")
			header = true
		}
		for _, box := range r.Path.Boxes {
			for _, st := range box.Stages {
				var extra []string
				for _, k := range slices.Sorted(maps.Keys(st.Extra)) {
					if st.Extra[k] != 0 {
						extra = append(extra, fmt.Sprintf("%s %d", k, st.Extra[k]))
					}
				}
				var rejected []string
				for _, k := range slices.Sorted(maps.Keys(st.Rejected)) {
					rejected = append(rejected, fmt.Sprintf("%d×%s", st.Rejected[k], k))
				}
				delay := metrics.NoValue
				if st.Delay["count"] > 0 {
					delay = metrics.FormatMs(st.Delay["avg"]) + " / " + metrics.FormatMs(st.Delay["p(95)"])
				}
				queued := metrics.NoValue
				if st.Queued["count"] > 0 {
					queued = metrics.FormatMs(st.Queued["avg"])
				}
				fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %s | %s | %s | %d | %s |\n", mdEscape(r.Spec.Name), box.Name, st.Kind,
					st.Seen, st.Passed, orDash(strings.Join(rejected, " ")), delay, queued, st.Bytes, orDash(strings.Join(extra, ", ")))
			}
		}
	}
	if header {
		b.WriteString("\n")
	}
}

func writeFindings(b *bytes.Buffer, x *record.ExperimentResult) {
	b.WriteString("**Diagnosis**\n\n")
	for _, r := range x.Runs {
		if len(r.Report.Findings) == 0 {
			fmt.Fprintf(b, "- *%s*: no findings\n", mdEscape(r.Spec.Name))
			continue
		}
		for _, f := range r.Report.Findings {
			var ev []string
			for _, fact := range f.Evidence {
				ev = append(ev, fmt.Sprintf("%s %s", fact.Name, record.FmtNum(fact.Value)))
			}
			fmt.Fprintf(b, "- *%s*: `%s` (%s, %s confidence) — %s", mdEscape(r.Spec.Name), f.Code, f.Severity, f.Confidence, mdEscape(f.Summary))
			if len(ev) > 0 {
				fmt.Fprintf(b, " Evidence: %s.", mdEscape(strings.Join(ev, ", ")))
			}
			if len(f.Suspect) > 0 {
				fmt.Fprintf(b, " Suspect first: %s.", mdEscape(strings.Join(f.Suspect, "; ")))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func writeChecks(b *bytes.Buffer, x *record.ExperimentResult) {
	b.WriteString("<details><summary>Expectations checked</summary>\n\n| run | what | band | measured | |\n|---|---|---|--:|---|\n")
	for _, r := range x.Runs {
		for _, c := range r.Checks {
			mark := "✅"
			switch {
			case c.Busy:
				mark = "⏸ " + mdEscape(record.BusyNote(c.Disturbance)+": "+c.Msg)
			case c.Skipped != "":
				mark = "⏭ " + mdEscape(c.Skipped)
			case !c.OK:
				mark = "❌ " + mdEscape(c.Msg)
			}
			measured := record.FmtNum(c.Value)
			if strings.HasPrefix(c.What, "finding ") {
				measured = "not found"
				if (c.Band == "present") == c.OK {
					measured = "found"
				}
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdEscape(r.Spec.Name), mdEscape(c.What), mdEscape(c.Band), measured, mark)
		}
	}
	b.WriteString("\n</details>\n\n")
}

func anchor(id string) string { return strings.ToLower(id) }

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}

func orDash(s string) string {
	if s == "" {
		return metrics.NoValue
	}
	return s
}

func signedMs(v float64) string {
	if v > 0 {
		return "+" + metrics.FormatMs(v)
	}
	return metrics.FormatMs(v)
}

func countOr(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func pctOf(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*v)
}
