package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeAcceptQueue: a listen backlog or an accept-rate limit with a new
// connection per request: the wait to be accepted lands in waiting
// (the kernel completed the handshake) and SYNs dropped past the
// backlog are retransmitted in connecting.
const CodeAcceptQueue = "accept-queue"

// acceptThresholds: a listen backlog or an accept-rate limit.
type acceptThresholds struct {
	Share Ratio `yaml:"share"` // the time outside the server ≥ this share of waiting
	// SynRetry is the kernel's initial SYN retransmission timeout (Linux:
	// 1 s, RFC 6298): a connect that took it waited for room in a backlog.
	SynRetry units.Duration `yaml:"syn_retry"`
}

// acceptQueue: a listen backlog or an accept-rate limit, with a new
// connection per request. The kernel completes the handshake and queues
// the connection until the server accepts it: the request is sent, and
// the wait lands in waiting, outside the server's own time; past the
// backlog the SYNs are dropped and retried, so connecting shows steps of
// about 1 s. Most requests must have dialled (connecting's median above
// 0) and some connects must have waited a SYN retry: without the retries
// a queue before accept looks like any delay on the path.
func acceptQueue(f *facts) *Finding {
	cn := f.all.Connecting
	c := thresholdsOf[acceptThresholds](f.cfg)
	if cn.Med <= 0 || cn.Peak() < timing.Millis(c.SynRetry)-f.floor || !f.hasServer {
		return nil
	}
	wait := f.served.Waiting
	if f.outside < f.floor || f.outside < float64(c.Share)*wait.Avg {
		return nil
	}
	fd := &Finding{Code: CodeAcceptQueue, Severity: SeverityWarning, Confidence: ConfidenceMedium}
	// The accept wait is the time outside the server of requests that
	// dialled; the SYN retries are connecting's.
	fd.claim(lineOutside, f.outside).claim(lineConnecting, cn.Avg).claim(lineBlockedRest, f.all.Blocked.Avg-cn.Avg-f.all.TLS.Avg)
	fd.ExplainsMs = f.outside + cn.Avg
	fd.add("connecting_median_ms", cn.Med).add("connecting_p95_ms", cn.Tail()).add("connecting_max_ms", cn.Peak())
	fd.add("waiting_avg_ms", wait.Avg).add("server_time_avg_ms", f.srv.Avg).add("outside_server_ms", f.outside)
	if x := f.w.RPS(); x > 0 {
		fd.add("rps", x)
		if f.model == ModelClosed && f.vus > 0 {
			fd.add("little_ms", f.vus/x*1000)
		}
	}
	if f.w.IterAvg > 0 {
		fd.add("iteration_avg_ms", f.w.IterAvg)
	}
	fd.Summary = fmt.Sprintf("Most requests open a new connection (connecting median %s) and some connects took %s (p95 %s): SYNs dropped past a full listen backlog and retried after %s. "+
		"The connections that got in waited to be accepted: %s of the %s waiting is outside the server's %s, at %.0f req/s.",
		metrics.FormatMs(cn.Med), metrics.FormatMs(cn.Peak()), metrics.FormatMs(cn.Tail()), metrics.FormatMs(timing.Millis(c.SynRetry)), metrics.FormatMs(f.outside), metrics.FormatMs(wait.Avg), metrics.FormatMs(f.srv.Avg), f.w.RPS())
	fd.Suspect = []string{
		"the server's listen backlog (somaxconn, the listen() backlog) too small for the connection rate",
		"a server or proxy that accepts connections slowly (an accept-rate limit, a busy accept loop)",
		"no connection reuse: every request pays the queue (noConnectionReuse, Connection: close)",
	}
	fd.Next = []string{
		"look for listen-queue overflows on the server (netstat -s | grep -i listen, ss -lnt: Recv-Q against Send-Q)",
		"reuse connections (keep-alive) and compare: with reuse only each connection's first request waits",
		"raise the backlog (somaxconn, the server's listen backlog) or the accept rate",
	}
	return fd
}
