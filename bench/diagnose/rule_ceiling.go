package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// CodeThroughputCeiling names seed 002's lesson: throughput stops growing
// while latency climbs.
const CodeThroughputCeiling = "throughput-ceiling"

// ceilingThresholds: seed 002's throughput ceiling.
type ceilingThresholds struct {
	Reach   Ratio `yaml:"reach"`   // a step within this share of the top TPS has reached the ceiling
	Load    Ratio `yaml:"load"`    // a later step offered this much more load …
	Growth  Ratio `yaml:"growth"`  // … but TPS grew less than this …
	Latency Ratio `yaml:"latency"` // … while p95 grew at least this much
	// Absorb: with arrival-rate steps, a later step served at most this
	// share of the arrivals added since the ceiling step.
	Absorb Ratio `yaml:"absorb"`
	// Lag: or an arrival-rate step served this share less than it was
	// offered (its queue grew while it ran).
	Lag Ratio `yaml:"lag"`
	// Flat: at one rate, the server's own p95 grew less than this over the
	// run (else its work, not a queue, climbed).
	Flat Ratio `yaml:"flat"`
}

// throughputCeiling is seed 002's "ceiling RPS": across the steps of a
// sweep, throughput stops growing while latency climbs — more offered load
// only queues. It names the shape, not the cause: the other findings say
// what stopped it (the server, the line, a device). When the generator is
// what stopped, generator-saturated takes the finding instead (E7).
//
// A step reaches the ceiling when its TPS is within `reach` of the top
// TPS. A later step then offered more load without being served: with VUs,
// `load` times the VUs for less than `growth` times the TPS; with arrival
// rates, at most `absorb` of the added arrivals per second served (past
// the ceiling an open model queues the rest: seed 003's 190 → 210/s), or
// served `lag` less than it was offered. And
// its p95 grew by `latency` times and at least the floor.
func throughputCeiling(obs *Observation, cfg *Config) *Finding {
	c := thresholdsOf[ceilingThresholds](cfg)
	type pt struct {
		name           string
		load, tps, p95 float64
	}
	var pts []pt
	top := 0.0
	for i := range obs.Steps {
		s := &obs.Steps[i]
		if s.Requests < cfg.MinRequests || s.Load() <= 0 || s.Seconds <= 0 {
			continue
		}
		ok := float64(s.Requests-s.Failed) / s.Seconds
		p := pt{name: s.Name, load: s.Load(), tps: ok, p95: s.Served().Duration.Tail()}
		pts = append(pts, p)
		top = max(top, ok)
	}
	if len(pts) < 3 || top <= 0 {
		return nil
	}
	// The ceiling step is the first step within reach of the top TPS
	// after which a later step was offered more and not served (a noisy
	// short step may reach the top early and still absorb some load).
	var names []string
	k, last := -1, -1
	open := obs.Steps[0].Rate > 0
	for i, a := range pts {
		if a.tps < float64(c.Reach)*top {
			continue
		}
		for j := i + 1; j < len(pts); j++ {
			b := pts[j]
			unserved := b.load >= float64(c.Load)*a.load && b.tps <= float64(c.Growth)*a.tps
			if open {
				// Or the step itself served less than it was offered:
				// its queue grew while it ran.
				unserved = b.load > a.load && (b.tps-a.tps <= float64(c.Absorb)*(b.load-a.load) || b.tps <= (1-float64(c.Lag))*b.load)
			}
			if unserved && b.p95 >= float64(c.Latency)*a.p95 && b.p95-a.p95 >= timing.Millis(cfg.Floor) {
				names = append(names, b.name)
				last = j
			}
		}
		if last >= 0 {
			k = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	// In an open model the queue already grows in the steps up to the
	// ceiling that served less than they were offered while their p95
	// climbed over the first step's: they hold the same queue.
	if open {
		var early []string
		for _, p := range pts[:k+1] {
			if p.tps <= (1-float64(c.Lag))*p.load && p.p95 >= float64(c.Latency)*pts[0].p95 && p.p95-pts[0].p95 >= timing.Millis(cfg.Floor) {
				early = append(early, p.name)
			}
		}
		names = append(early, names...)
	}
	a, b := pts[k], pts[last]
	fd := &Finding{Code: CodeThroughputCeiling, Severity: SeverityWarning, Confidence: ConfidenceHigh,
		ExplainsMs: b.p95 - a.p95, Steps: names}
	fd.add("ceiling_rps", a.tps).add("load_at_ceiling", a.load).add("p95_at_ceiling_ms", a.p95)
	fd.add("top_load", b.load).add("rps_at_top", b.tps).add("p95_at_top_ms", b.p95)
	unit := "VUs"
	if open {
		unit = "req/s offered"
	}
	fd.Summary = fmt.Sprintf("Throughput stops at about %.0f req/s (reached at %.0f %s): at %.0f %s it is %.0f req/s while p95 climbs from %s to %s. "+
		"Past the ceiling, more load only queues.", a.tps, a.load, unit, b.load, unit, b.tps, metrics.FormatMs(a.p95), metrics.FormatMs(b.p95))
	fd.Suspect = []string{
		"whatever saturates first: see the other findings (server-slow: the server; download-limited: the line; path-latency: a device)",
		"the server's CPU, workers or DB pool; a device's capacity; the link's bandwidth",
	}
	fd.Next = []string{
		"report the ceiling (TPS where latency starts to climb) and the p95 just below it",
		"for the SLO, run an open model at rates below the ceiling and read p95 there",
		"find what saturates at the ceiling step: server CPU and pools, devices' counters, link use",
	}
	return fd
}

// ceilingInStep is the ceiling's claim in a step past it: in an open model
// the arrivals it does not serve queue — in the server's own queue, or
// outside its time (a proxy's connection queue) beyond what the path
// costs in the quietest step — and that queue is the ceiling's, not a
// path's. In a closed model the backlog rule claims the queue instead.
func ceilingInStep(f *facts) *Finding {
	if f.model != ModelOpen || !f.hasServer {
		return nil
	}
	fd := &Finding{Code: CodeThroughputCeiling, Severity: SeverityWarning, Confidence: ConfidenceHigh}
	fd.claim(lineServer, f.queue.Avg)
	if f.quietOutside >= 0 {
		fd.claim(lineOutside, f.outside-f.quietOutside)
	}
	return fd
}

// ceilingAtOneRate is the ceiling of an open model run at one rate above
// it, read off a stream without steps: fewer requests served per second
// than iterations arrived (started or dropped), by throughput_ceiling.lag,
// while the p95 climbed over the run (its series' last bucket against its
// first, by throughput_ceiling.latency): the arrivals it could not serve
// queued. The queue beyond the first second's time outside the server is
// the ceiling's, not a path's.
func ceilingAtOneRate(f *facts) *Finding {
	o, c := f.obs, thresholdsOf[ceilingThresholds](f.cfg)
	if f.name != "" || f.model != ModelOpen || len(o.Steps) > 0 || len(o.Series) < 3 || f.w.Seconds <= 0 || !f.hasServer {
		return nil
	}
	offered := float64(f.w.Iterations+f.w.Dropped) / f.w.Seconds
	served := float64(f.w.Requests-f.w.Failed) / f.w.Seconds
	first, last := o.Series[0].Served().Duration.Tail(), o.Series[len(o.Series)-2].Served().Duration.Tail()
	if offered <= 0 || served > (1-float64(c.Lag))*offered || last < float64(c.Latency)*first || last-first < f.floor {
		return nil
	}
	// The climb is a queue's, not the server's own work growing (a
	// degrading server is server-slow's): its time stays flat.
	s0, sn := &o.Series[0], &o.Series[len(o.Series)-2]
	if sn.Phases.Server.Tail() > float64(c.Flat)*s0.Phases.Server.Tail() {
		return nil
	}
	fd := &Finding{Code: CodeThroughputCeiling, Severity: SeverityWarning, Confidence: ConfidenceMedium, ExplainsMs: last - first}
	floor := max(s0.Served().Waiting.Avg-s0.Phases.Server.Avg-s0.Phases.ServerQueue.Avg, 0)
	fd.claim(lineServer, f.queue.Avg).claim(lineOutside, f.outside-floor)
	fd.add("offered_per_s", offered).add("served_per_s", served).add("p95_first_s_ms", first).add("p95_last_s_ms", last)
	fd.Summary = fmt.Sprintf("Iterations arrived at %.0f/s and %.0f/s were served while p95 climbed from %s to %s: "+
		"the run's one rate is above what the system serves, and the arrivals it cannot serve queue (an open model past its ceiling). "+
		"Steps of rising rates (ramping-arrival-rate) show where the ceiling is.", offered, served, metrics.FormatMs(first), metrics.FormatMs(last))
	fd.Suspect = []string{
		"whatever caps throughput: the server's workers or pools, a proxy's connection limit (maxconn, max_conns), a device",
	}
	fd.Next = []string{
		"run ramping-arrival-rate steps below and around this rate to find the ceiling, and read p95 below it",
		"find what holds the throughput: the server's and the proxies' queue counters",
	}
	return fd
}

// pastCeiling: the window is a step past the sweep's throughput ceiling
// (or the whole run of such a sweep).
func (f *facts) pastCeiling() bool { return f.sweeps[CodeThroughputCeiling] != nil }
