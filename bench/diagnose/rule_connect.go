package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeConnectSlow names rule 1: slow TCP connects.
const CodeConnectSlow = "connect-slow"

// connectThresholds: rule 1.
type connectThresholds struct {
	Slow units.Duration `yaml:"slow"`
}

// connectSlow is rule 1: connecting high — distance (RTT) between
// generator and server, a firewall or LB limiting new connections, or a
// server with no room to accept (SYN drops show as 1 s, 3 s steps).
func connectSlow(f *facts) *Finding {
	v, most := connValue(f.all.Connecting)
	if v < timing.Millis(thresholdsOf[connectThresholds](f.cfg).Slow) || explained(f, lineConnecting, most) {
		return nil
	}
	fd := &Finding{Code: CodeConnectSlow, Severity: SeverityWarning, Confidence: ConfidenceMedium, ExplainsMs: f.all.Connecting.Avg}
	fd.claim(lineConnecting, f.all.Connecting.Avg)
	fd.add("connecting_avg_ms", f.all.Connecting.Avg).add("connecting_p95_ms", f.all.Connecting.Tail()).add("connecting_max_ms", f.all.Connecting.Peak())
	how := "p95"
	if !most {
		how, fd.Severity = "max; few requests opened connections", SeverityInfo
	}
	fd.Summary = fmt.Sprintf("TCP connects take %s (%s): the generator is far from the server, or something limits new connections. http_req_duration leaves it out.", metrics.FormatMs(v), how)
	fd.Suspect = []string{
		"distance: the round-trip time between the generator and the server",
		"a firewall or load balancer limiting new connections",
		"the server's accept backlog full (SYN drops: retries after 1 s, 3 s)",
	}
	fd.Next = []string{
		"measure the RTT from the generator's host (ping, a bare TCP connect)",
		"look for SYN drops and listen-queue overflows on the server (netstat -s, ss -lnt)",
		"check the firewall's and load balancer's new-connection limits",
	}
	return fd
}
