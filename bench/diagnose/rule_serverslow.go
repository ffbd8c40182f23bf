package diagnose

import (
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeServerSlow names rule 5: the server's own time.
const CodeServerSlow = "server-slow"

// serverSlowThresholds: rule 5.
type serverSlowThresholds struct {
	Slow   units.Duration `yaml:"slow"`   // server time p95 at or above this is high
	Share  Ratio          `yaml:"share"`  // server time ≥ this share of waiting: a material share (the rest may be the path's)
	Growth Ratio          `yaml:"growth"` // or server p95 grows this much across steps
}

// serverSlow is rule 5: waiting is high and the server's own time is high
// with it — the server itself (application, DB, threads) is slow (E3a:
// waiting 503 ms, server time 502 ms). "Waiting ≈ server time" is read as
// the server's share of waiting; "high" as its p95 reaching the configured
// line. With a server queue in an open model the server is busy: arrivals
// exceed its capacity. In a closed model that queue is the model's backlog
// (closed-model-backlog), not slowness. A large upload that inflates
// waiting belongs to upload-limited.
func serverSlow(f *facts) *Finding {
	c := thresholdsOf[serverSlowThresholds](f.cfg)
	if !f.hasServer {
		return nil
	}
	wait := f.served.Waiting
	if !wait.Present() {
		wait = f.served.Duration
	}
	// The server's own work, not its queue: a queue for a worker is
	// arrivals past capacity (a ceiling, a backlog), and the work stays
	// what it was (s003: 50 ms with 125 ms queued).
	total := min(f.b.left(lineServer), f.srv.Avg)
	tail := f.srv.Tail()
	grows := spreads(f)
	// A server slow for the typical request (its median at the line) is
	// named for a material share of waiting, beside other causes (250 ms
	// of server behind 250 ms of path). Slow only in its tail, or only
	// spreading, is weaker evidence (a starved host's tail looks alike):
	// the server must then hold what the path would need to be named (all
	// but path_latency's share).
	need := float64(c.Share)
	if med := f.srv.Med; med > 0 && med < timing.Millis(c.Slow) || tail < timing.Millis(c.Slow) {
		need = max(need, 1-float64(thresholdsOf[pathLatencyThresholds](f.cfg).Share))
	}
	if tail < timing.Millis(c.Slow) && !grows || share(total, wait.Avg) < need {
		return nil
	}
	if tail < timing.Millis(c.Slow) {
		fd := serverFinding(f, wait, ConfidenceMedium)
		fd.add("server_time_min_ms", f.srv.Min)
		fd.Summary = fmt.Sprintf("The server's own time spreads from %s to %s (p95) across the run and holds %s of waiting: "+
			"it grows with the load, as a server at capacity does (CPU-bound, a pool). A summary mixes the run's loads; "+
			"k6's NDJSON shows it step by step. ", metrics.FormatMs(f.srv.Min), metrics.FormatMs(f.srv.Tail()), pct(share(total, wait.Avg))) + fd.Summary
		return fd
	}
	return serverFinding(f, wait, ConfidenceHigh)
}

// spreads: a window without steps of a ramp (the VUs changed, or a
// ramping executor) whose server time spreads by the sweep's growth
// factor (p95 against min): the one sign a summary of a sweep gives of a
// server whose time grows with load (seed 004: 10 ms alone, 90 ms at
// 8 VUs). A steady load's spread is noise, not growth.
func spreads(f *facts) bool {
	c := thresholdsOf[serverSlowThresholds](f.cfg)
	ramp := f.w.mixedVUs() || strings.HasPrefix(f.obs.Run.Executor, "ramping-")
	return len(f.obs.Steps) == 0 && ramp && f.srv.Min > 0 && f.srv.Tail() >= float64(c.Growth)*f.srv.Min && f.srv.Tail()-f.srv.Min >= f.floor
}

func serverFinding(f *facts, wait Stat, conf Confidence) *Finding {
	total := f.srv.Avg
	fd := &Finding{Code: CodeServerSlow, Severity: SeverityWarning, Confidence: conf, ExplainsMs: total}
	fd.claim(lineServer, total)
	fd.add("waiting_avg_ms", wait.Avg).add("waiting_p95_ms", wait.Tail()).add("server_time_avg_ms", f.srv.Avg).add("server_time_p95_ms", f.srv.Tail())
	if f.queue.Present() {
		fd.add("server_queue_avg_ms", f.queue.Avg)
	}
	fd.add("server_share", share(total, wait.Avg))
	fd.Summary = fmt.Sprintf("The server itself takes the time: waiting %s (p95 %s), server time %s (p95 %s) — %s of waiting is inside the server.",
		metrics.FormatMs(wait.Avg), metrics.FormatMs(wait.Tail()), metrics.FormatMs(f.srv.Avg), metrics.FormatMs(f.srv.Tail()), pct(share(total, wait.Avg)))
	if f.queue.Avg >= f.floor {
		fd.Summary += fmt.Sprintf(" Its queue for a worker (%s) is not its work: that is arrivals past its capacity.", metrics.FormatMs(f.queue.Avg))
	}
	fd.Suspect = []string{
		"the application: its code, DB queries, locks, thread and connection pools",
		"its CPU (seed 004: a CPU-bound password hash made a login server take 2 s)",
		"a dependency it calls",
	}
	fd.Next = []string{
		"look inside the server under load: APM transaction breakdown, thread dump, DB slow-query log",
		"watch the server's CPU and pools (threads, DB connections) during the run",
		"raise the load in steps: if server time grows with load, the server is at capacity",
	}
	return fd
}

// serverSweep: the server's own p95 grows with the load across steps (×
// growth): a server at capacity, e.g. CPU-bound (seed 004: server time
// itself grows with load).
func serverSweep(obs *Observation, cfg *Config) *Finding {
	fs := stepFacts(obs, cfg, true)
	if len(fs) < 2 {
		return nil
	}
	first, last, c := fs[0], fs[len(fs)-1], thresholdsOf[serverSlowThresholds](cfg)
	if last.srv.Tail() < float64(c.Growth)*first.srv.Tail() || last.srv.Tail()-first.srv.Tail() < last.floor ||
		share(last.srv.Avg, last.served.Waiting.Avg) < float64(c.Share) {
		return nil
	}
	fd := serverFinding(last, last.served.Waiting, ConfidenceHigh)
	fd.add("server_time_p95_first_ms", first.srv.Tail())
	fd.Summary = fmt.Sprintf("The server's own time grows with the load: p95 %s at the first step, %s at the last. ",
		metrics.FormatMs(first.srv.Tail()), metrics.FormatMs(last.srv.Tail())) + fd.Summary
	fd.Steps = []string{last.name}
	return fd
}
