package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// CodeHiddenConnectionCost names the article's consequence 1: setup
// that http_req_duration leaves out.
const CodeHiddenConnectionCost = "hidden-connection-cost"

// hiddenCostThresholds: consequence 1.
type hiddenCostThresholds struct {
	Share Ratio `yaml:"share"` // blocked ≥ this share of duration
}

// hiddenConnectionCost is the article's consequence 1: connection setup
// (blocked, which holds connecting and TLS) is outside http_req_duration.
// When it is large against duration, a duration-only view or threshold
// misses what users who connect pay (E1: duration 54 ms in all three runs,
// blocked 316 ms with a new connection per request).
func hiddenConnectionCost(f *facts) *Finding {
	b, d := f.all.Blocked, f.all.Duration
	s := float64(thresholdsOf[hiddenCostThresholds](f.cfg).Share)
	if !(b.Avg >= f.floor && b.Avg >= s*d.Avg) && !(b.Tail() >= f.floor && b.Tail() >= s*d.Tail()) {
		return nil
	}
	fd := &Finding{Code: CodeHiddenConnectionCost, Severity: SeverityWarning, Confidence: ConfidenceHigh, ExplainsMs: b.Avg}
	fd.add("blocked_avg_ms", b.Avg).add("blocked_p95_ms", b.Tail()).add("duration_avg_ms", d.Avg).add("duration_p95_ms", d.Tail())
	fd.Summary = fmt.Sprintf("Connection setup takes %s on average (p95 %s), but http_req_duration (%s) leaves it out: a request on a new connection costs %s in all, and a duration-only report or threshold does not show it.",
		metrics.FormatMs(b.Avg), metrics.FormatMs(b.Tail()), metrics.FormatMs(d.Avg), metrics.FormatMs(b.Avg+d.Avg))
	fd.Suspect = []string{
		"whatever makes setup slow (see tls-handshake-slow, connect-slow, connection-wait)",
		"connections not reused (noConnectionReuse, Connection: close): real visitors connect each time",
	}
	fd.Next = []string{
		"read blocked, connecting and tls_handshaking next to duration (k6 --summary-mode=full)",
		"put a threshold on http_req_blocked or iteration_duration, not only on http_req_duration",
	}
	return fd
}
