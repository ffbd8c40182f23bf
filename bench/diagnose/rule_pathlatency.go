package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// CodePathLatency names rule 6: time on the path, outside the server.
const CodePathLatency = "path-latency"

// pathLatencyThresholds: rule 6.
type pathLatencyThresholds struct {
	Share Ratio `yaml:"share"` // waiting − server time ≥ this share of waiting (and ≥ floor)
}

// pathLatency is rule 6: waiting is high and the server's time is low —
// the rest of waiting is outside the server: round trips, a security
// device inspecting or queueing, a load balancer queueing (E0 and E3b:
// waiting 503 ms, server 51 ms, 452 ms outside). Rule out a saturated
// generator first (its delay lands in waiting too): generator-saturated,
// upload-limited (an upload draining during waiting) and an unplaced
// closed-model backlog silence this rule.
func pathLatency(f *facts) *Finding {
	if !f.hasServer {
		return nil
	}
	wait := f.served.Waiting
	rest := f.b.left(lineOutside) // what no cause found before explains
	// Its share is of the waiting less the server's time a cause found
	// before explains: beside a server named slow, a device's constant
	// delay is the rest of the time (a 100 ms WAF beside a server
	// degrading to 800 ms). What causes claimed outside the server stays
	// in: the residual of a backlog is not a path.
	open := wait.Avg - f.b.claimed[lineServer]
	if rest < f.floor || rest < float64(thresholdsOf[pathLatencyThresholds](f.cfg).Share)*max(open, 0) {
		return nil
	}
	conf := ConfidenceHigh
	if f.w.CPU == 0 && f.model != ModelClosed {
		conf = ConfidenceMedium // the generator's state is not known
	}
	fd := &Finding{Code: CodePathLatency, Severity: SeverityWarning, Confidence: conf, ExplainsMs: rest}
	fd.claim(lineOutside, rest)
	// The few handshakes of reused connections, at most two of the
	// path's round trips each (TLS 1.2 takes two, 1.3 one): distance, not
	// a slow terminator or a slow connect.
	if p := f.all.TLS; p.Tail() == 0 && p.Peak() > 0 && p.Peak() <= 2*rest+f.floor {
		fd.claim(lineConnTails, 0)
	}
	// The few connects that waited a SYN retry (1 s, then 3 s, 7 s) lost
	// a packet on their way: the path's loss, which delays its answers
	// too, not distance or a limit on new connections.
	lostSYN := false
	if p := f.all.Connecting; p.Tail() == 0 && synRetried(p.Peak(), f) {
		fd.claim(lineConnTails, 0)
		lostSYN = true
	}
	fd.add("waiting_avg_ms", wait.Avg).add("waiting_p95_ms", wait.Tail()).add("server_time_avg_ms", f.srv.Avg).add("server_time_p95_ms", f.srv.Tail())
	if f.queue.Present() {
		fd.add("server_queue_avg_ms", f.queue.Avg)
	}
	fd.add("outside_server_ms", f.outside).add("outside_server_p95_ms", f.outsideP95)
	if rest < f.outside {
		fd.add("explained_by_other_causes_ms", f.outside-rest).add("unexplained_ms", rest)
	}
	fd.add("outside_share", share(rest, wait.Avg))
	if f.w.CPU > 0 {
		fd.add("generator_cpu_pct", f.w.CPU)
	}
	fd.add("dropped_iterations", float64(f.w.Dropped))
	fd.Summary = fmt.Sprintf("%s of the %s waiting (%s) is outside the server, which reports %s",
		metrics.FormatMs(f.outside), metrics.FormatMs(wait.Avg), pct(share(f.outside, wait.Avg)), metrics.FormatMs(f.srv.Avg+f.queue.Avg))
	if rest < f.outside {
		fd.Summary += fmt.Sprintf("; the other findings explain %s of it and leave %s", metrics.FormatMs(f.outside-rest), metrics.FormatMs(rest))
	}
	fd.Summary += ": round trips, a device inspecting or queueing requests, or a load balancer — not the server."
	if lostSYN {
		fd.Summary += fmt.Sprintf(" A connect took %s, a SYN retry: the path lost a packet, as it may lose answers.", metrics.FormatMs(f.all.Connecting.Peak()))
	}
	fd.Suspect = []string{
		"round-trip time between the generator and the server",
		"a security device (WAF, IPS) inspecting or queueing requests",
		"a load balancer or proxy queueing requests",
	}
	fd.Next = []string{
		f.generatorLine(),
		"run the same scenario straight at the server and through the path, and compare waiting phase by phase (rule 11)",
		"ask the devices for their own latency (WAF / LB logs, their Server-Timing entries)",
	}
	return fd
}

// synRetried: a connect of about k SYN retry timeouts (1, 3, 7 × 1 s,
// give or take the floor) waited for a SYN or SYN-ACK sent again.
func synRetried(peak float64, f *facts) bool {
	r := timing.Millis(thresholdsOf[acceptThresholds](f.cfg).SynRetry)
	for _, k := range []float64{1, 3, 7} {
		if peak >= k*r-f.floor && peak <= k*r+f.floor+0.05*k*r {
			return true
		}
	}
	return false
}
