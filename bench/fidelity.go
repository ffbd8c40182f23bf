package bench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// fidelityPhases are the phases compared between the two generators: the
// tables' k6 phases, blocked to duration (not the server's own columns).
var fidelityPhases = phaseColumns[:7]

// cpuBound is the share of its cores above which a generator is
// measuring itself as much as the target.
const cpuBound = 90.0

// fidelityRow compares one phase of one run: the engine's and k6's
// average and p95 (ms).
type fidelityRow struct {
	Run, Phase             string
	EngAvg, K6Avg          float64
	EngP95, K6P95          float64
	AvgOK, P95OK           bool
	Reason                 string  // why not, where not
	EngCPU, K6CPU          float64 // % of the generator's cores
	EngCPUms, K6CPUms      float64 // generator CPU per request, ms
	EngRequests, K6Request int64
	eng, k6                *RunResult
	// Fair is the run re-measured by both generators alike (see
	// fairRounds), for a row out of tolerance; nil when it was not.
	Fair *fairRow
}

// fairRow is a phase of the re-measured round.
type fairRow struct {
	EngAvg, K6Avg, EngP95, K6P95 float64
	AvgOK, P95OK                 bool
	EngCPUms, K6CPUms            float64
	Load                         [2]string
	Reason                       string // why not, from that round's own measurements
}

// within is the fidelity bar: max(5 %, 1 ms) of the engine's figure.
func within(eng, k6 float64) bool {
	if math.IsNaN(eng) || math.IsNaN(k6) {
		return math.IsNaN(eng) == math.IsNaN(k6)
	}
	return math.Abs(k6-eng) <= max(0.05*math.Abs(eng), 1)
}

func cpuOf(r *RunResult) float64 {
	if r.Doc == nil || r.Doc.GeneratorCPU == nil {
		return math.NaN()
	}
	return r.Doc.GeneratorCPU.Percent
}

// fidelity pairs each engine run with its k6 replay.
func fidelity(x *ExperimentResult) []fidelityRow {
	var rows []fidelityRow
	for _, kr := range x.K6 {
		var eng *RunResult
		for _, r := range x.Runs {
			if r.Spec.Name == kr.Spec.Name {
				eng = r
			}
		}
		if eng == nil {
			continue
		}
		for _, p := range fidelityPhases {
			row := fidelityRow{Run: kr.Spec.Name, Phase: p.head,
				EngAvg: eng.phaseValue(p.ref, "avg"), K6Avg: kr.phaseValue(p.ref, "avg"),
				EngP95: eng.phaseValue(p.ref, "p(95)"), K6P95: kr.phaseValue(p.ref, "p(95)"),
				EngCPU: cpuOf(eng), K6CPU: cpuOf(kr.RunResult), EngRequests: eng.Result.Requests, K6Request: kr.Result.Requests,
				EngCPUms: cpuPerRequest(eng), K6CPUms: cpuPerRequest(kr.RunResult), eng: eng, k6: kr.RunResult}
			row.AvgOK, row.P95OK = within(row.EngAvg, row.K6Avg), within(row.EngP95, row.K6P95)
			if !row.AvgOK || !row.P95OK {
				row.Reason = row.why()
				if f := fairOf(x, kr.Spec.Name); f != nil {
					row.Fair = &fairRow{EngAvg: f.Eng.phaseValue(p.ref, "avg"), K6Avg: f.K6.phaseValue(p.ref, "avg"),
						EngP95: f.Eng.phaseValue(p.ref, "p(95)"), K6P95: f.K6.phaseValue(p.ref, "p(95)"),
						EngCPUms: cpuPerRequest(f.Eng), K6CPUms: cpuPerRequest(f.K6.RunResult), Load: f.Load}
					row.Fair.AvgOK, row.Fair.P95OK = within(row.Fair.EngAvg, row.Fair.K6Avg), within(row.Fair.EngP95, row.Fair.K6P95)
					if !row.Fair.AvgOK || !row.Fair.P95OK {
						again := fidelityRow{Run: row.Run, Phase: p.head, EngAvg: row.Fair.EngAvg, K6Avg: row.Fair.K6Avg,
							EngP95: row.Fair.EngP95, K6P95: row.Fair.K6P95, AvgOK: row.Fair.AvgOK, P95OK: row.Fair.P95OK,
							EngCPU: cpuOf(f.Eng), K6CPU: cpuOf(f.K6.RunResult), EngCPUms: row.Fair.EngCPUms, K6CPUms: row.Fair.K6CPUms,
							EngRequests: f.Eng.Result.Requests, K6Request: f.K6.Result.Requests, eng: f.Eng, k6: f.K6.RunResult}
						row.Fair.Reason = again.why()
					}
					row.Reason += row.selfSpread()
				}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func mark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

// selfSpread says where the engine's own two rounds (the replay and the
// re-measured one) differ by more than the tolerance: the conditions moved
// as much as the generators differ.
func (r fidelityRow) selfSpread() string {
	var s []string
	for _, m := range []struct {
		name         string
		replay, fair float64
	}{{"avg", r.EngAvg, r.Fair.EngAvg}, {"p95", r.EngP95, r.Fair.EngP95}} {
		if !within(m.replay, m.fair) {
			s = append(s, fmt.Sprintf("%s %s vs %s", m.name, fmtMs(m.replay), fmtMs(m.fair)))
		}
	}
	if len(s) == 0 {
		return ""
	}
	return "; the engine against itself, replay vs again: " + strings.Join(s, ", ") + ", out of max(5 %, 1 ms) too"
}

// cell is the re-measured round's figures for the table ("" when the
// row was not re-measured), with each generator's CPU per request and the
// machine's load when it ran.
func (f *fairRow) cell() string {
	if f == nil {
		return ""
	}
	s := fmt.Sprintf("%s / %s %s; %s / %s %s (load %s → %s", fmtMs(f.EngAvg), fmtMs(f.K6Avg), mark(f.AvgOK),
		fmtMs(f.EngP95), fmtMs(f.K6P95), mark(f.P95OK), f.Load[0], f.Load[1])
	if f.Reason == "" {
		return s + fmt.Sprintf("; CPU per request %s / %s)", fmtMs(f.EngCPUms), fmtMs(f.K6CPUms))
	}
	return s + "; " + f.Reason + ")"
}

// printK6 is the terminal report of an experiment's k6 replay.
func printK6(w io.Writer, x *ExperimentResult) {
	for _, kr := range x.K6 {
		fmt.Fprintf(w, "  k6 › %s: %d requests, %s failed, CPU %.0f %%; export: %s", kr.Spec.Name, kr.Result.Requests,
			pct(kr.Result.Failed, kr.Result.Requests), cpuOf(kr.RunResult), codesOrNone(kr.Report.Codes()))
		if kr.Stream != nil {
			fmt.Fprintf(w, "; stream: %s", codesOrNone(kr.Stream.Codes()))
		}
		fmt.Fprintln(w)
	}
	for _, r := range fidelity(x) {
		if !r.AvgOK || !r.P95OK {
			fmt.Fprintf(w, "  k6 ≠ engine › %s %s: avg %s vs %s, p95 %s vs %s (%s)\n", r.Run, r.Phase,
				fmtMs(r.K6Avg), fmtMs(r.EngAvg), fmtMs(r.K6P95), fmtMs(r.EngP95), r.Reason)
			if r.Fair != nil {
				fmt.Fprintf(w, "    again, both alike: avg; p95, engine / k6: %s\n", r.Fair.cell())
			}
		}
	}
}

// writeFidelity is RESULTS.md's table of k6 against the engine.
func writeFidelity(b *bytes.Buffer, s *Summary) {
	var n, ok, out, again, fairOK int
	var body bytes.Buffer
	for _, x := range s.Experiments {
		for _, r := range fidelity(x) {
			n += 2
			for _, v := range [][2]bool{{r.AvgOK, r.Fair != nil && r.Fair.AvgOK}, {r.P95OK, r.Fair != nil && r.Fair.P95OK}} {
				switch {
				case v[0]:
					ok++
				case r.Fair != nil:
					out, again = out+1, again+1
					if v[1] {
						fairOK++
					}
				default:
					out++
				}
			}
			fmt.Fprintf(&body, "| %s | %s | %s | %s / %s %s | %s / %s %s | %s | %s |\n", x.Exp.ID, mdEscape(r.Run), r.Phase,
				fmtMs(r.EngAvg), fmtMs(r.K6Avg), mark(r.AvgOK), fmtMs(r.EngP95), fmtMs(r.K6P95), mark(r.P95OK), r.Fair.cell(), mdEscape(r.Reason))
		}
	}
	if n == 0 {
		return
	}
	b.WriteString("## Real k6 as a second generator\n\n")
	fmt.Fprintf(b, "Every run replayed with %s through the same server and path, with the script `middlebench run FILE --k6-script` generates from the same YAML (`bench --k6`). ", s.K6Version)
	fmt.Fprintf(b, "A phase agrees when k6's figure is within max(5 %%, 1 ms) of the engine's: %d of %d figures do. ", ok, n)
	if again > 0 {
		fmt.Fprintf(b, "Of the %d that do not, %d were measured again by both generators alike — the server and path in a child process, each generator alone in its process on the same CPUs, the engine then k6, back to back (in the replay the engine shares its process with the server and path, and the rounds run minutes apart) — and %d of those agree; the replay's verdict stands, the column *again* shows that round. ", out, again, fairOK)
	}
	fmt.Fprintf(b, "Load average of the machine (1, 5, 15 min) when the replay began: %s; when it ended: %s.\n\n", s.LoadBefore, s.LoadAfter)
	b.WriteString("What the analyzer finds in k6's files, and k6's results against each run's expectations:\n\n")
	b.WriteString("| exp | run | k6's summary export | k6's NDJSON stream | expectations on k6's results |\n|---|---|---|---|---|\n")
	for _, x := range s.Experiments {
		for _, kr := range x.K6 {
			stream := "—"
			if kr.Stream != nil {
				stream = codesOrNone(kr.Stream.Codes())
			}
			verdict := kr.verdict()
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", x.Exp.ID, mdEscape(kr.Spec.Name), codesOrNone(kr.Report.Codes()), stream, mdEscape(verdict))
		}
	}
	b.WriteString("\nPer run and phase, the engine's figure and k6's:\n\n")
	b.WriteString("| exp | run | phase | avg engine / k6 | p95 engine / k6 | again: avg; p95, engine / k6 | where not, why |\n|---|---|---|---|---|---|---|\n")
	b.Write(body.Bytes())
	b.WriteString("\n")
}
