package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
)

// fidelityPhases are the phases compared between the two generators: the
// tables' k6 phases, blocked to duration (not the server's own columns).
var fidelityPhases = phaseColumns[:7]

// cpuBound is the share of its cores above which a generator is
// measuring itself as much as the target.
const cpuBound = 90.0

// FidelityRow compares one phase of one run: the engine's and k6's
// average and p95 (ms).
type FidelityRow struct {
	Run, Phase             string
	EngAvg, K6Avg          float64
	EngP95, K6P95          float64
	AvgOK, P95OK           bool
	Reason                 string  // why not, where not
	EngCPU, K6CPU          float64 // % of the generator's cores
	EngCPUms, K6CPUms      float64 // generator CPU per request, ms
	EngRequests, K6Request int64
	eng, k6                *record.RunResult
	rounds                 []*record.FairRound
	// Fair is the run re-measured by both generators alike (see
	// fairRounds), for a row out of tolerance; nil when it was not.
	Fair *fairRow
	// Exempt says why a figure that does not agree measures the
	// generators themselves (their CPU, their own speed) rather than the
	// target ("" when it does not): exemption.
	Exempt string
}

// pairRow compares one phase (ref, as the table heads it: head) of a run
// as the engine and k6 measured it.
func pairRow(run, head, ref string, eng, k6 *record.RunResult) FidelityRow {
	row := FidelityRow{Run: run, Phase: head,
		EngAvg: phaseValue(eng, ref, "avg"), K6Avg: phaseValue(k6, ref, "avg"),
		EngP95: phaseValue(eng, ref, "p(95)"), K6P95: phaseValue(k6, ref, "p(95)"),
		EngCPU: cpuOf(eng), K6CPU: cpuOf(k6), EngRequests: eng.Result.Requests, K6Request: k6.Result.Requests,
		EngCPUms: cpuPerRequest(eng), K6CPUms: cpuPerRequest(k6), eng: eng, k6: k6}
	row.AvgOK, row.P95OK = within(row.EngAvg, row.K6Avg), within(row.EngP95, row.K6P95)
	return row
}

// fairRowOf is one phase (ref, as the table heads it: head) of a run's
// re-measured rounds.
func fairRowOf(rounds []*record.FairRound, ref, run, head string) *fairRow {
	f := &fairRow{Load: [2]string{rounds[0].Load[0], rounds[len(rounds)-1].Load[1]}}
	var ea, ka, ep, kp, ec, kc, ecp, kcp []float64
	for _, r := range rounds {
		ff := fairFigures{EngAvg: phaseValue(r.Eng, ref, "avg"), K6Avg: phaseValue(r.K6.RunResult, ref, "avg"),
			EngP95: phaseValue(r.Eng, ref, "p(95)"), K6P95: phaseValue(r.K6.RunResult, ref, "p(95)"), K6First: r.K6First}
		f.Rounds = append(f.Rounds, ff)
		ea, ka, ep, kp = append(ea, ff.EngAvg), append(ka, ff.K6Avg), append(ep, ff.EngP95), append(kp, ff.K6P95)
		ec, kc = append(ec, cpuPerRequest(r.Eng)), append(kc, cpuPerRequest(r.K6.RunResult))
		ecp, kcp = append(ecp, cpuOf(r.Eng)), append(kcp, cpuOf(r.K6.RunResult))
	}
	f.EngAvg, f.K6Avg, f.EngP95, f.K6P95 = median(ea), median(ka), median(ep), median(kp)
	f.EngCPUms, f.K6CPUms, f.EngCPU, f.K6CPU = median(ec), median(kc), median(ecp), median(kcp)
	f.AvgOK, f.P95OK = within(f.EngAvg, f.K6Avg), within(f.EngP95, f.K6P95)
	if f.AvgOK && f.P95OK {
		return f
	}
	// The why of the round whose gap, on the first figure out, is the
	// median gap: the facts of one round that looks like the verdict.
	gap := func(ff fairFigures) float64 {
		if !f.AvgOK {
			return ff.K6Avg - ff.EngAvg
		}
		return ff.K6P95 - ff.EngP95
	}
	gaps := make([]float64, len(f.Rounds))
	for i, ff := range f.Rounds {
		gaps[i] = gap(ff)
	}
	mid, best := median(gaps), 0
	for i, g := range gaps {
		if math.Abs(g-mid) < math.Abs(gaps[best]-mid) {
			best = i
		}
	}
	r := rounds[best]
	f.Reason = fmt.Sprintf("round %d: %s", best+1, pairRow(run, head, ref, r.Eng, r.K6.RunResult).why())
	return f
}

// fairRow is a phase of the re-measured rounds: the medians of each
// generator's figures over the rounds, and each round's.
type fairRow struct {
	Rounds                       []fairFigures
	EngAvg, K6Avg, EngP95, K6P95 float64 // medians
	AvgOK, P95OK                 bool
	EngCPUms, K6CPUms            float64 // medians
	EngCPU, K6CPU                float64 // medians, % of each generator's cores
	Load                         [2]string
	Reason                       string // why not, from the round nearest the medians
}

// fairFigures is one round's figures of a phase.
type fairFigures struct {
	EngAvg, K6Avg, EngP95, K6P95 float64
	K6First                      bool
}

// within is the fidelity bar: max(5 %, 1 ms) of the engine's figure.
func within(eng, k6 float64) bool {
	if math.IsNaN(eng) || math.IsNaN(k6) {
		return math.IsNaN(eng) == math.IsNaN(k6)
	}
	return math.Abs(k6-eng) <= max(0.05*math.Abs(eng), 1)
}

func cpuOf(r *record.RunResult) float64 {
	if r.Doc == nil || r.Doc.GeneratorCPU == nil {
		return math.NaN()
	}
	return r.Doc.GeneratorCPU.Percent
}

// Fidelity pairs each engine run with its k6 replay.
func Fidelity(x *record.ExperimentResult) []FidelityRow {
	var rows []FidelityRow
	for _, kr := range x.K6 {
		var eng *record.RunResult
		for _, r := range x.Runs {
			if r.Spec.Name == kr.Spec.Name {
				eng = r
			}
		}
		if eng == nil {
			continue
		}
		for _, p := range fidelityPhases {
			row := pairRow(kr.Spec.Name, p.head, p.ref, eng, kr.RunResult)
			if !row.AvgOK || !row.P95OK {
				row.Reason = row.why()
				if rounds := fairOf(x, kr.Spec.Name); len(rounds) > 0 {
					row.rounds = rounds
					row.Fair = fairRowOf(rounds, p.ref, row.Run, p.head)
					row.Reason += row.selfSpread()
				}
			}
			var not string
			if row.Exempt, not = row.exemption(); not != "" {
				row.Reason += "; " + not
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// mark is a comparison's, not a verdict's: ≠ where k6 and the engine
// differ beyond the bar (❌ stays the mark of an expectation that failed).
func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "≠"
}

// selfSpread says where the engine's own two rounds (the replay and the
// re-measured one) differ by more than the tolerance: the conditions moved
// as much as the generators differ.
func (r FidelityRow) selfSpread() string {
	var s []string
	for _, m := range []struct {
		name         string
		replay, fair float64
	}{{"avg", r.EngAvg, r.Fair.EngAvg}, {"p95", r.EngP95, r.Fair.EngP95}} {
		if !within(m.replay, m.fair) {
			s = append(s, fmt.Sprintf("%s %s vs %s", m.name, metrics.FormatMs(m.replay), metrics.FormatMs(m.fair)))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return "; the engine against itself, replay vs the rounds' median: " + strings.Join(s, ", ") + ", out of max(5 %, 1 ms) too"
}

// cell is the re-measured rounds' medians for the table ("" when the row
// was not re-measured), each round's figures, each generator's CPU per
// request (medians) and the machine's load from the first round to the
// last.
func (f *fairRow) cell() string {
	if f == nil {
		return ""
	}
	s := fmt.Sprintf("median of %d: %s / %s %s; %s / %s %s (rounds, avg; p95:", len(f.Rounds), metrics.FormatMs(f.EngAvg), metrics.FormatMs(f.K6Avg), mark(f.AvgOK),
		metrics.FormatMs(f.EngP95), metrics.FormatMs(f.K6P95), mark(f.P95OK))
	for i, r := range f.Rounds {
		first := "engine first"
		if r.K6First {
			first = "k6 first"
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		s += fmt.Sprintf("%s %d) %s / %s; %s / %s (%s)", sep, i+1, metrics.FormatMs(r.EngAvg), metrics.FormatMs(r.K6Avg), metrics.FormatMs(r.EngP95), metrics.FormatMs(r.K6P95), first)
	}
	s += fmt.Sprintf("; load %s → %s", f.Load[0], f.Load[1])
	if f.Reason == "" {
		return s + fmt.Sprintf("; CPU per request %s / %s)", metrics.FormatMs(f.EngCPUms), metrics.FormatMs(f.K6CPUms))
	}
	return s + "; " + f.Reason + ")"
}

// verdict is a figure's mark: ✅ within the bar in the replay, ✅ by the
// re-measured medians (the *again* column), ⚪ exempt, else ≠.
func verdict(replay bool, fair *bool, exempt bool) string {
	switch {
	case replay || (fair != nil && *fair):
		return "✅"
	case exempt:
		return "⚪"
	}
	return mark(false)
}

// PrintK6 is the terminal report of an experiment's k6 replay.
func PrintK6(w io.Writer, x *record.ExperimentResult) {
	for _, kr := range x.K6 {
		fmt.Fprintf(w, "  k6 › %s: %d requests, %s failed, CPU %.0f %%; export: %s", kr.Spec.Name, kr.Result.Requests,
			pct(kr.Result.Failed, kr.Result.Requests), cpuOf(kr.RunResult), codesOrNone(kr.Report.Codes()))
		if kr.Stream != nil {
			fmt.Fprintf(w, "; stream: %s", codesOrNone(kr.Stream.Codes()))
		}
		fmt.Fprintf(w, "; machine: %s", kr.RunDisturbance())
		if st := kr.StepsDisturbance(); st != "" {
			fmt.Fprintf(w, " (steps %s)", st)
		}
		fmt.Fprintln(w)
	}
	for _, r := range Fidelity(x) {
		if !r.AvgOK || !r.P95OK {
			fmt.Fprintf(w, "  k6 ≠ engine › %s %s: avg %s vs %s, p95 %s vs %s (%s)\n", r.Run, r.Phase,
				metrics.FormatMs(r.K6Avg), metrics.FormatMs(r.EngAvg), metrics.FormatMs(r.K6P95), metrics.FormatMs(r.EngP95), r.Reason)
			if r.Fair != nil {
				fmt.Fprintf(w, "    again, both alike: avg; p95, engine / k6: %s\n", r.Fair.cell())
			}
			if r.Exempt != "" {
				fmt.Fprintf(w, "    exempt: %s\n", r.Exempt)
			}
		}
	}
}

// fidelityCount is the table's tally of figures (an avg or a p95 of a
// phase of a run).
type fidelityCount struct {
	n, ok       int // figures; within the bar in the replay
	again       int // out in the replay and re-measured
	againOK     int // of those, within by the rounds' medians
	exempt      int // out, and exempt (exemption)
	exemptFigs  []string
	unexplained int // out, not exempt
}

func (c *fidelityCount) add(x *record.ExperimentResult, r FidelityRow) {
	for _, v := range []struct {
		name     string
		ok, fair bool
	}{{"avg", r.AvgOK, r.Fair != nil && r.Fair.AvgOK}, {"p95", r.P95OK, r.Fair != nil && r.Fair.P95OK}} {
		c.n++
		switch {
		case v.ok:
			c.ok++
			continue
		case r.Fair != nil:
			c.again++
			if v.fair {
				c.againOK++
				continue
			}
		}
		if r.Exempt != "" {
			c.exempt++
			c.exemptFigs = append(c.exemptFigs, fmt.Sprintf("%s %s %s %s", x.Exp.ID, r.Run, r.Phase, v.name))
		} else {
			c.unexplained++
		}
	}
}

// writeFidelity is RESULTS.md's table of k6 against the engine.
func writeFidelity(b *bytes.Buffer, s *record.Summary) {
	var c fidelityCount
	var body bytes.Buffer
	exempts := map[string]string{} // run → why, once
	var exemptRuns []string
	for _, x := range s.Experiments {
		for _, r := range Fidelity(x) {
			c.add(x, r)
			var fa, fp *bool
			if r.Fair != nil {
				fa, fp = &r.Fair.AvgOK, &r.Fair.P95OK
			}
			why := r.Reason
			if r.Exempt != "" {
				why = "exempt: " + r.Exempt + "; " + why
				key := x.Exp.ID + " " + r.Run
				if _, seen := exempts[key]; !seen {
					exempts[key] = r.Exempt
					exemptRuns = append(exemptRuns, key)
				}
			}
			fmt.Fprintf(&body, "| %s | %s | %s | %s / %s %s | %s / %s %s | %s | %s |\n", x.Exp.ID, mdEscape(r.Run), r.Phase,
				metrics.FormatMs(r.EngAvg), metrics.FormatMs(r.K6Avg), verdict(r.AvgOK, fa, r.Exempt != ""), metrics.FormatMs(r.EngP95), metrics.FormatMs(r.K6P95), verdict(r.P95OK, fp, r.Exempt != ""),
				r.Fair.cell(), mdEscape(why))
		}
	}
	if c.n == 0 {
		return
	}
	b.WriteString("## Real k6 as a second generator\n\n")
	fmt.Fprintf(b, "Every run replayed with %s through the same server and path, with the script `middlebench run FILE --k6-script` generates from the same YAML (`bench --k6`). ", s.K6Version)
	fmt.Fprintf(b, "A figure (a phase's avg or p95) agrees when k6's is within max(5 %%, 1 ms) of the engine's. ")
	fmt.Fprintf(b, "%d of %d agree; %d exempt because both generators were CPU-bound or the run generator-bound", c.ok+c.againOK, c.n, c.exempt)
	if len(exemptRuns) > 0 {
		var fs []string
		for _, k := range exemptRuns {
			fs = append(fs, k+": "+exempts[k])
		}
		fmt.Fprintf(b, " (%s)", strings.Join(fs, "; "))
	}
	fmt.Fprintf(b, "; %d do not. ", c.unexplained)
	fmt.Fprintf(b, "In the replay %d agree. ", c.ok)
	if c.again > 0 {
		fmt.Fprintf(b, "The %d that do not were measured again where the run allows it (not through a wire), in %d paired rounds with both generators alike — the server and path in a child process, each generator alone in its process on the same CPUs, back to back, the engine first in odd rounds and k6 first in even ones (in the replay the engine shares its process with the server and path, and the two run minutes apart) — and a figure measured again agrees when the median of the engine's rounds and the median of k6's are within the bar: %d of those %d do. A disturbed round of either generator moves no median; a generator off in every round is off in its median. The rounds add at most %d times both generators' run time for each run re-measured. The replay's figures stay in the table, its verdict is the mark when the rounds agree too; the column *again* shows the medians and each round. ", c.again, record.FairRoundsN, c.againOK, c.again, record.FairRoundsN)
	}
	fmt.Fprintf(b, "≠ marks a figure where k6 and the engine differ beyond that bar: a comparison, not a failed expectation (k6's results are judged against each run's expectations in the table below); its last column gives what was measured about why — each generator's CPU per request, the requests each sent, and whether the engine differed as much from itself between the replay and the re-measured rounds. ")
	fmt.Fprintf(b, "Exempt (⚪): a figure that agrees in neither, where both generators were CPU-bound — each used at least %.0f %% of its cores over the run, or for a sweep in the steps that hold half of its requests — in the replay and in every round; or where the run is generator-bound — a closed model with no think time against a target that took no time for the phase (the server and the stages report 0, in the replay and in every round), so that each generator measured only its own speed. ", cpuBound)
	fmt.Fprintf(b, "Load average of the machine (1, 5, 15 min) when the replay began: %s; when it ended: %s.\n\n", s.LoadBefore, s.LoadAfter)
	b.WriteString("What the analyzer finds in k6's files, and k6's results against each run's expectations:\n\n")
	b.WriteString("| exp | run | k6's summary export | k6's NDJSON stream | expectations on k6's results |\n|---|---|---|---|---|\n")
	for _, x := range s.Experiments {
		for _, kr := range x.K6 {
			stream := metrics.NoValue
			if kr.Stream != nil {
				stream = codesOrNone(kr.Stream.Codes())
			}
			verdict := k6Verdict(kr)
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", x.Exp.ID, mdEscape(kr.Spec.Name), codesOrNone(kr.Report.Codes()), stream, mdEscape(verdict))
		}
	}
	b.WriteString("\nPer run and phase, the engine's figure and k6's:\n\n")
	b.WriteString("| exp | run | phase | avg engine / k6 | p95 engine / k6 | again: avg; p95, engine / k6 | where not, why |\n|---|---|---|---|---|---|---|\n")
	b.Write(body.Bytes())
	b.WriteString("\n")
}

// fairOf is the re-measured rounds of run, in the order they ran.
func fairOf(x *record.ExperimentResult, run string) []*record.FairRound {
	var out []*record.FairRound
	for i := range x.Fair {
		if x.Fair[i].Run == run {
			out = append(out, &x.Fair[i])
		}
	}
	return out
}

// median is the middle of v (the mean of the two middle ones for an even
// count); NaN for none, or when any is NaN (a phase a round lacks).
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	for _, f := range s {
		if math.IsNaN(f) {
			return math.NaN()
		}
	}
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// k6Verdict is one run's checks with k6, in a line: the passed of the
// made, what failed and, apart, what the files could not show.
func k6Verdict(kr *record.K6Run) string {
	passed, made := 0, 0
	var failed, busy, skipped []string
	for _, c := range kr.Checks {
		switch {
		case c.Skipped != "":
			skipped = append(skipped, c.What+": "+c.Skipped)
			continue
		case c.OK:
			passed++
		case c.Busy:
			busy = append(busy, c.Msg+" ("+record.BusyNote(c.Disturbance)+")")
		default:
			failed = append(failed, c.Msg)
		}
		made++
	}
	v := fmt.Sprintf("✅ %d/%d", passed, made)
	switch {
	case len(failed) > 0:
		v = fmt.Sprintf("❌ %d/%d: %s", passed, made, strings.Join(failed, "; "))
	case len(busy) > 0:
		v = fmt.Sprintf("⏸ %d/%d, not measured: %s", passed, made, strings.Join(busy, "; "))
	}
	if len(skipped) > 0 {
		v += fmt.Sprintf("; ⏭ %d skipped: %s", len(skipped), strings.Join(skipped, "; "))
	}
	return v
}
