package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/proxy"
)

// A fidelity row out of tolerance says why from what both rounds
// measured, never from what the phase is "usually" like. The facts are
// the ones that move a phase without the generator measuring it
// differently: the target's own time (the server's Server-Timing and the
// stages' ledgers) moving between the two rounds, each generator's CPU
// per request, how many of the requests opened a connection (a p95 that
// sits on new connections), and how few requests a percentile rests on.

// targetStages are the stage kinds whose ledger delay lands inside a
// phase: a WAF's inspection and a fault's delay inside waiting (and so
// duration), a TLS stage's handshake delay inside tls (and so blocked).
var targetStages = map[string][]string{
	"waiting":  {"waf", "fault"},
	"duration": {"waf", "fault"},
	"tls":      {"tls"},
	"blocked":  {"tls"},
}

// serverPhases are the phases that contain the server's own time.
var serverPhases = map[string]bool{"waiting": true, "duration": true}

// fewRequests is the count under which a p95 rests on a request or two.
const fewRequests = 40

// cpuPerRequest is a run's generator CPU (user + system) per request, ms.
func cpuPerRequest(r *record.RunResult) float64 {
	if r.Doc == nil || r.Doc.GeneratorCPU == nil || r.Result == nil || r.Result.Requests == 0 {
		return math.NaN()
	}
	c := r.Doc.GeneratorCPU
	return 1000 * (c.UserSeconds + c.SystemSeconds) / float64(r.Result.Requests)
}

// targetTime is the target's own time of a phase in one run, for stat
// ("avg" or "p(95)"): the server's work and its wait for a worker (as it
// reports them in Server-Timing) for the phases that contain them, plus
// the ledger delay of each stage that lands in the phase. NaN when the target reports nothing for the phase. For
// p95 the sum is of each part's own p95 (an upper bound of the sum's).
func targetTime(r *record.RunResult, phase, stat string) (float64, []string) {
	total, parts := 0.0, []string{}
	if serverPhases[phase] {
		for _, t := range []struct {
			name string
			m    map[string]float64
		}{{"server work", r.Server.ServerTime}, {"server queue", r.Server.QueueTime}} {
			if v, ok := t.m[stat]; ok {
				total += v
				parts = append(parts, t.name+" "+metrics.FormatMs(v))
			}
		}
	}
	for _, st := range stagesOf(r.Path, targetStages[phase]) {
		if v, ok := st.s.Delay[stat]; ok {
			total += v
			parts = append(parts, fmt.Sprintf("%s.%s delay %s", st.box, st.s.Kind, metrics.FormatMs(v)))
		}
	}
	if len(parts) == 0 {
		return math.NaN(), nil
	}
	return total, parts
}

type namedStage struct {
	box string
	s   proxy.StageStats
}

func stagesOf(ps *proxy.PathStats, kinds []string) []namedStage {
	if ps == nil {
		return nil
	}
	var out []namedStage
	for _, b := range ps.Boxes {
		for _, s := range b.Stages {
			for _, k := range kinds {
				if s.Kind == k {
					out = append(out, namedStage{b.Name, s})
				}
			}
		}
	}
	return out
}

// newConnections is how many connections the generator opened, as the
// path's first box accepted them; -1 without a path.
func newConnections(r *record.RunResult) int64 {
	if r.Path == nil || len(r.Path.Boxes) == 0 {
		return -1
	}
	return r.Path.Boxes[0].Accepted
}

// statOf names a stat as the table prints it.
var statOf = map[string]string{"avg": "avg", "p(95)": "p95"}

// why says what the two rounds measured differently, for each stat out
// of tolerance, then each generator's CPU and request count.
func (r FidelityRow) why() string {
	var why []string
	for _, m := range []struct {
		stat     string
		ok       bool
		eng, gen float64
	}{{"avg", r.AvgOK, r.EngAvg, r.K6Avg}, {"p(95)", r.P95OK, r.EngP95, r.K6P95}} {
		if m.ok {
			continue
		}
		why = append(why, r.statWhy(m.stat, m.eng, m.gen)...)
	}
	why = append(why, fmt.Sprintf("CPU per request: engine %s (%.0f %% of %s, with the server and path in its process unless isolated), k6 %s (%.0f %% of %s, k6 alone)",
		metrics.FormatMs(r.EngCPUms), r.EngCPU, coresOf(r.eng), metrics.FormatMs(r.K6CPUms), r.K6CPU, coresOf(r.k6)))
	if r.eng != nil && r.eng.Doc != nil && len(r.eng.Doc.Steps) > 0 {
		why = append(why, fmt.Sprintf("CPU in the busiest steps that hold half of the requests: engine %.0f %%, k6 %.0f %%",
			boundShare(r.eng), boundShare(r.k6)))
	}
	if r.EngCPU >= cpuBound && r.K6CPU >= cpuBound {
		why = append(why, "both generators CPU-bound")
	} else if r.K6CPU >= cpuBound {
		why = append(why, "k6 CPU-bound")
	} else if r.EngCPU >= cpuBound {
		why = append(why, "the engine CPU-bound")
	}
	if d := math.Abs(float64(r.K6Request - r.EngRequests)); d > 0.05*float64(r.EngRequests) {
		why = append(why, fmt.Sprintf("k6 sent %d requests, the engine %d", r.K6Request, r.EngRequests))
	}
	return strings.Join(why, "; ")
}

// coresOf names the cores a generator's CPU share is of: the CPUs it was
// pinned to, else those of the machine.
func coresOf(r *record.RunResult) string {
	if r == nil || r.Doc == nil || r.Doc.GeneratorCPU == nil || r.Doc.GeneratorCPU.Cores == 0 {
		return "its cores"
	}
	if n := r.Doc.GeneratorCPU.Cores; n != 1 {
		return fmt.Sprintf("its %d cores", n)
	}
	return "its 1 core"
}

// statWhy is the measured facts behind one stat's gap.
func (r FidelityRow) statWhy(stat string, eng, k6 float64) []string {
	var why []string
	name := statOf[stat]
	if r.eng == nil || r.k6 == nil {
		return nil
	}
	if te, partsE := targetTime(r.eng, r.Phase, stat); !math.IsNaN(te) {
		tk, partsK := targetTime(r.k6, r.Phase, stat)
		shift, gap := tk-te, k6-eng
		if te == 0 && tk == 0 {
			why = append(why, name+": the target took no time in either round (server and stages report 0): the gap is the generators' own")
			return append(why, r.fewWhy(stat)...)
		}
		s := fmt.Sprintf("%s: the target's own time %s → %s (%s → %s)", name, metrics.FormatMs(te), metrics.FormatMs(tk),
			strings.Join(partsE, " + "), strings.Join(partsK, " + "))
		if !math.IsNaN(shift) && within(eng, eng+gap-shift) {
			s += fmt.Sprintf(": it moved %s of the %s gap between the rounds; the rest, %s, is within max(5 %%, 1 ms)",
				metrics.FormatMs(shift), metrics.FormatMs(gap), metrics.FormatMs(gap-shift))
		}
		why = append(why, s)
	}
	return append(why, r.fewWhy(stat)...)
}

// fewWhy is what makes a p95 fragile: few requests, or a p95 that sits on
// the requests that opened a connection.
func (r FidelityRow) fewWhy(stat string) []string {
	var why []string
	if stat == "p(95)" {
		if n := min(r.EngRequests, r.K6Request); n > 0 && n < fewRequests {
			why = append(why, fmt.Sprintf("p95 of %d and %d requests: their top one or two", r.EngRequests, r.K6Request))
		}
		// Only a minority of requests opening a connection puts the p95
		// on them (between 5 % and half of the requests).
		if ce, ck := newConnections(r.eng), newConnections(r.k6); ce > 0 && ck >= 0 && connPhases[r.Phase] && 2*ce < r.EngRequests {
			why = append(why, fmt.Sprintf("p95 over new connections: %d of %d requests opened one with the engine, %d of %d with k6",
				ce, r.EngRequests, ck, r.K6Request))
		}
	}
	return why
}

// connPhases are the phases a request pays only on a new connection.
var connPhases = map[string]bool{"blocked": true, "connecting": true, "tls": true}
