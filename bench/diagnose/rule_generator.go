package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeGeneratorSaturated names rule 10: the load generator is the bottleneck.
const CodeGeneratorSaturated = "generator-saturated"

// generatorThresholds: rule 10.
type generatorThresholds struct {
	CPU        Ratio `yaml:"cpu"`         // generator CPU percent at or above this is saturated (k6: keep under 80)
	Dropped    Ratio `yaml:"dropped"`     // dropped iterations ≥ this share of the iterations asked for
	Diverge    Ratio `yaml:"diverge"`     // sweep: k6 p95 / server p95 grows this much …
	ServerFlat Ratio `yaml:"server_flat"` // … while server p95 grows less than this
	// OwnMin and OwnShare: the generator's own time (sending + receiving
	// on small bodies, or script time per iteration) is a sign when at
	// least OwnMin and OwnShare of the time outside the server.
	OwnMin   units.Duration `yaml:"own_min"`
	OwnShare Ratio          `yaml:"own_share"`
	// StallMedian: sending and receiving stall when their medians are at
	// most this share of their average.
	StallMedian Ratio `yaml:"stall_median"`
	// TailMedian: the time outside the server is in the tail when its
	// median is at most this share of its average.
	TailMedian Ratio `yaml:"tail_median"`
	// Held: iterations dropped while at least this share of the VUs
	// allocated were busy were held by latency (a queue in front of the
	// server keeps VUs waiting), not the generator's: a generator behind
	// its schedule drops them with VUs idle.
	Held Ratio `yaml:"held"`
}

// generatorSaturated is rule 10: the load generator cannot keep up, so its
// own delay lands in k6's phases. All phases grow together regardless of
// the server's time, dropped_iterations appear (arrival-rate executors),
// and the generator's CPU is near its limit (k6 docs: keep it under 80 %).
// The time outside the server then belongs to the generator, not to the
// path: this rule runs before path-latency and silences it (E7: at
// 3,600/s waiting 61 ms, receiving 13 ms, sending 1.9 ms against a server
// at 21 ms, 3,148 dropped iterations).
//
// One window needs a capacity sign (CPU at the limit, or dropped
// iterations), time outside the server, and a sign that it is the
// generator's: CPU at the limit, or sending and receiving inflated along
// with waiting on small bodies (a device in the path adds to waiting only).
func generatorSaturated(f *facts) *Finding {
	w, c := f.w, thresholdsOf[generatorThresholds](f.cfg)
	if !f.hasServer {
		return nil
	}
	cpuHigh := cpuFull(w, c)
	asked := w.Iterations + w.Dropped
	dropped := w.Dropped > 0 && float64(w.Dropped) >= float64(c.Dropped)*float64(asked) && !held(w, c) && !droppedAtStart(f)
	wait := f.served.Waiting.Avg
	outside := f.outside >= f.floor && f.outside >= float64(thresholdsOf[pathLatencyThresholds](f.cfg).Share)*wait
	client := f.served.Sending.Avg + f.served.Receiving.Avg
	large := float64(thresholdsOf[uploadThresholds](f.cfg).Body)
	small := f.bytesPer(w.DataReceived) < large && f.bytesPer(w.DataSent) < large
	inflated := client >= timing.Millis(c.OwnMin) && client >= float64(c.OwnShare)*f.outside && small
	tail := behindInTail(f)
	script := scriptTime(f)
	scripted := script >= timing.Millis(c.OwnMin) && script >= float64(c.OwnShare)*f.outside
	stalls := stalled(f, small)
	if !(cpuHigh || dropped) || !outside || !(cpuHigh || inflated || dropped && (tail || scripted || stalls)) {
		return nil
	}
	conf := ConfidenceMedium
	if cpuHigh && (dropped || inflated) {
		conf = ConfidenceHigh
	}
	fd := generatorFinding(f, conf)
	if cpuHigh && w.CPU < float64(c.CPU) {
		fd.Summary += fmt.Sprintf(" Its CPU was %.0f %% busy, %.0f %% of it other processes' (or stolen): they starved the generator, "+
			"whose own work took %.0f %%.", w.CPU+w.CPUOthers, w.CPUOthers, w.CPU)
		fd.Suspect = append([]string{"other processes on the generator's CPUs"}, fd.Suspect...)
	}
	if script > 0 {
		fd.add("script_ms_per_iteration", script)
	}
	if scripted && !cpuHigh && !inflated {
		fd.Summary += fmt.Sprintf(" Each iteration spends %s beside its requests (iteration_duration − the requests' time): "+
			"the script's own work, and %d arrivals found no free VU — the generator is behind its schedule.", metrics.FormatMs(script), w.Dropped)
	}
	if stalls && !tail && !scripted && !cpuHigh && !inflated {
		fd.Summary += fmt.Sprintf(" Sending and receiving average %s on small bodies while their medians are %s: some requests' "+
			"writes and reads waited for the generator, which a device on the path does not make them do. Without the generator's CPU "+
			"(--generator-cpu) or the steps (k6's NDJSON) this is the likeliest reading, not a proof.",
			metrics.FormatMs(f.served.Sending.Avg+f.served.Receiving.Avg), metrics.FormatMs(f.served.Sending.Med+f.served.Receiving.Med))
	}
	if tail && !scripted && !cpuHigh && !inflated {
		fd.add("outside_server_median_ms", f.served.Waiting.Med-f.srv.Med-f.queue.Med)
		fd.Summary += fmt.Sprintf(" The time outside the server is in the tail (median %s, average %s) while the server's own time stays flat: "+
			"the requests of the busiest seconds waited for the generator, not every request for a device. Without the generator's CPU "+
			"(--generator-cpu) or the steps (k6's NDJSON) this is the likeliest reading, not a proof.",
			metrics.FormatMs(max(f.served.Waiting.Med-f.srv.Med-f.queue.Med, 0)), metrics.FormatMs(f.outside))
		fd.alternative(CodePathLatency, "a path that loses packets delays a few requests by a retransmission (200 ms and more) and leaves the others alone, "+
			"a tail too: k6's NDJSON shows whether the delay clusters in the seconds the generator was behind or spreads over the run")
	}
	return fd
}

// cpuFull: the generator's CPUs were at the limit, by its own work or,
// where a pinned generator knows it, with other processes' (one starved by
// them falls behind with its own share at half).
func cpuFull(w *Window, c generatorThresholds) bool {
	return w.CPU+w.CPUOthers >= float64(c.CPU)
}

// stalled: on small bodies, sending and receiving average 1 ms or more
// while their medians stay near zero — a few requests' writes and reads
// waited hundreds of ms, as those of a generator behind on its CPU do
// (E7 through k6's summary export: sending max 252 ms and receiving max
// 299 ms, medians 0.01 and 0.02 ms, with the generator behind for most of
// the run, so its delay is not only in the tail). A device on the path
// delays waiting, not the writing or the reading of a small body.
func stalled(f *facts, small bool) bool {
	s, r := f.served.Sending, f.served.Receiving
	if !small || s.noPercentiles || r.noPercentiles {
		return false
	}
	avg := s.Avg + r.Avg
	c := thresholdsOf[generatorThresholds](f.cfg)
	return avg >= timing.Millis(c.OwnMin) && s.Med+r.Med <= float64(c.StallMedian)*avg
}

// scriptTime is the generator's own time per iteration beside its
// requests: iteration_duration − the requests' blocked + duration (k6's
// summary has no per-iteration request count; requests ÷ iterations
// stands in). 0 when the file lacks iteration_duration.
func scriptTime(f *facts) float64 {
	w := f.w
	if w.IterAvg <= 0 || w.Iterations <= 0 {
		return 0
	}
	per := float64(w.Requests) / float64(w.Iterations)
	return max(w.IterAvg-per*(f.all.Duration.Avg+f.all.Blocked.Avg), 0)
}

// behindInTail: the delay outside the server sits in the tail, not the
// median (a device on the path delays every request; a generator that
// falls behind delays those of its busiest seconds), and the server's own
// time is flat. It is how an open-model summary, which has neither the
// generator's CPU nor steps, shows a generator behind its arrivals.
func behindInTail(f *facts) bool {
	wt, srv := f.served.Waiting, f.srv
	if wt.Med <= 0 || srv.Med <= 0 || f.outside < f.floor {
		return false
	}
	medOutside := wt.Med - srv.Med - f.queue.Med
	c := thresholdsOf[generatorThresholds](f.cfg)
	return medOutside <= float64(c.TailMedian)*f.outside && srv.Tail() <= float64(c.ServerFlat)*srv.Med
}

func generatorFinding(f *facts, conf Confidence) *Finding {
	w := f.w
	fd := &Finding{Code: CodeGeneratorSaturated, Severity: SeverityCritical, Confidence: conf,
		ExplainsMs: max(f.outside, 0) + f.served.Sending.Avg + f.served.Receiving.Avg}
	fd.claim(lineOutside, f.outside).claim(lineSending, f.served.Sending.Avg).claim(lineReceiving, f.served.Receiving.Avg).claim(lineConnTails, 0)
	// A generator starved of CPU dials slowly too (E7: connects of 134 ms
	// at p95 in a saturated step, under 1 ms below the knee): what its
	// dials take beyond the quietest step's is its own.
	if f.quietConnect >= 0 {
		fd.claim(lineConnecting, f.all.Connecting.Avg-f.quietConnect)
	}
	if w.CPU > 0 {
		fd.add("generator_cpu_pct", w.CPU)
	}
	if w.CPUOthers > 0 {
		fd.add("generator_cpu_others_pct", w.CPUOthers)
	}
	fd.add("dropped_iterations", float64(w.Dropped))
	fd.add("waiting_avg_ms", f.served.Waiting.Avg).add("server_time_avg_ms", f.srv.Avg).add("outside_server_ms", f.outside)
	fd.add("sending_avg_ms", f.served.Sending.Avg).add("receiving_avg_ms", f.served.Receiving.Avg)
	fd.add("duration_p95_ms", f.served.Duration.Tail()).add("server_time_p95_ms", f.srv.Tail())
	if w.RPS() > 0 {
		fd.add("rps", w.RPS())
	}
	cpu := ""
	if w.CPU > 0 {
		cpu = fmt.Sprintf(", generator CPU %.0f %%", w.CPU)
	}
	fd.Summary = fmt.Sprintf("k6's times grow without the server's: waiting %s against a server at %s (%s outside it), sending %s, receiving %s; "+
		"%d iterations dropped%s. The generator cannot keep up: the time outside the server is its own, not the path's.",
		metrics.FormatMs(f.served.Waiting.Avg), metrics.FormatMs(f.srv.Avg), metrics.FormatMs(f.outside), metrics.FormatMs(f.served.Sending.Avg), metrics.FormatMs(f.served.Receiving.Avg), w.Dropped, cpu)
	fd.Suspect = []string{
		"the generator's CPU: script work per response (checks, parsing, crypto), too many VUs for its cores",
		"the generator's memory, network (1 Gbit/s), ports (~65 k per IP) or file descriptors",
		"too few pre-allocated or maximum VUs for the arrival rate",
	}
	fd.Next = []string{
		"watch the generator during the run: CPU under 80 %, memory under 90 %",
		"find the generator's own limit first with a small run straight at a trivial server, then stay below it",
		"cut the script's per-response work or spread the load over more generators",
	}
	return fd
}

// generatorInStep is the finding in a step (or the whole run) of a sweep
// where generatorSweep found the knee: the generator's claims there.
func generatorInStep(f *facts) *Finding {
	if !f.hasServer {
		return nil
	}
	return generatorFinding(f, ConfidenceHigh)
}

// generatorSweep finds the steps where k6's p95 leaves the server's behind
// while the server stays flat, with dropped iterations or a busy CPU: the
// knee of E7 (lines together up to 2,800/s; at 3,200/s k6 p95 93 ms, at
// 3,600/s 191 ms; server p95 ≈ 24 ms throughout). Its Steps are the steps
// from the knee on.
func generatorSweep(obs *Observation, cfg *Config) *Finding {
	c := thresholdsOf[generatorThresholds](cfg)
	fs := stepFacts(obs, cfg, true)
	if len(fs) < 2 {
		return nil
	}
	// The baseline is the quietest step — k6's p95 closest to the
	// server's — not always the first: a generator that stalls as it
	// starts makes its first step look loaded.
	own := func(f *facts) float64 { return f.srv.Tail() + f.queue.Tail() }
	bi := 0
	for i, f := range fs {
		if share(f.served.Duration.Tail(), own(f)) < share(fs[bi].served.Duration.Tail(), own(fs[bi])) {
			bi = i
		}
	}
	base := fs[bi]
	var fd *Finding
	var steps []string
	signed := false // a step showed the generator's own sign: CPU at its limit, or its phases grown
	// The server's own view of a request is its queue and its work (own):
	// a server whose queue grows (an open model past its workers) is not a
	// flat server behind a slow generator.
	for _, f := range fs[bi+1:] {
		s := f.w
		ratio0 := share(base.served.Duration.Tail(), own(base))
		ratio := share(f.served.Duration.Tail(), own(f))
		// Flat at the p95, or at the median when the server's tail caught
		// the machine's own starvation (E7 on a loaded host: server p95
		// 110 ms in one step, its median 21 ms as below the knee).
		flat := own(f) <= float64(c.ServerFlat)*own(base) ||
			f.srv.Med > 0 && f.queue.Med == 0 && f.srv.Med <= float64(c.ServerFlat)*base.srv.Med
		// Drops with every VU busy (a stream's vus over vus_max) are the
		// generator's only when its own phases grew with them (sending and
		// receiving this many times the quietest step's: E7 through k6, a
		// CPU-starved generator reads slowly). The engine's document has no
		// busy share and its phases do not grow: its drops count (E7).
		clientGrew := f.served.Sending.Avg+f.served.Receiving.Avg >= float64(c.Diverge)*(base.served.Sending.Avg+base.served.Receiving.Avg)
		busy := s.Dropped > 0 && (!held(s, c) || clientGrew) || cpuFull(s, c)
		grown := f.served.Duration.Tail()-base.served.Duration.Tail() >= f.floor
		// From the knee on: more arrivals only leave a generator that
		// fell behind further behind.
		if fd != nil || ratio >= float64(c.Diverge)*ratio0 && flat && busy && grown {
			steps = append(steps, f.name)
			signed = signed || cpuFull(s, c) || clientGrew
			nf := generatorFinding(f, ConfidenceHigh)
			nf.add("server_time_p95_first_ms", base.srv.Tail()).add("duration_p95_first_ms", base.served.Duration.Tail())
			if fd == nil || nf.ExplainsMs > fd.ExplainsMs {
				fd = nf
			}
		}
	}
	if fd != nil {
		fd.Steps = steps
	}
	if fd != nil && !signed {
		// Drops alone: arrivals found no free VU. A queue in the path past
		// a connection limit (HAProxy's maxconn) holds VUs as long as a
		// generator that fell behind does; only the generator's CPU tells.
		fd.Confidence = ConfidenceMedium
		fd.alternative(CodeThroughputCeiling, "a queue in the path past a connection limit (a proxy's maxconn) holds VUs too, so arrivals "+
			"find none free: the generator's CPU during the run (--generator-cpu, or k6 watched with top) tells its saturation from a ceiling in the path")
	}
	return fd
}

// held: the window's VUs were (nearly) all busy, so its dropped
// iterations found no free VU because latency held them — an open model
// past a ceiling in front of the server — not because the generator fell
// behind (E7 past its knee dropped with half its VUs idle).
func held(w *Window, c generatorThresholds) bool {
	return w.busyVUs >= float64(c.Held)
}

// droppedAtStart: a stream's iterations were all dropped in its first
// second, while k6 started its VUs, and none after while the time outside
// the server went on: k6's start, not a generator behind its arrivals
// (which drops them in the seconds it is behind).
func droppedAtStart(f *facts) bool {
	ss := f.obs.Series
	return f.name == "" && len(ss) > 2 && ss[0].Dropped == f.w.Dropped
}
