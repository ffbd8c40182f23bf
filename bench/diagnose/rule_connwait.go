package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// CodeConnectionWait names rule 3: waiting for a connection slot.
const CodeConnectionWait = "connection-wait"

// connectionWaitThresholds: rule 3.
type connectionWaitThresholds struct {
	Share Ratio `yaml:"share"` // blocked − connecting − TLS ≥ this share of blocked
}

// connectionWait is rule 3: blocked high while connecting and
// tls_handshaking are low — the generator waited for a connection slot
// (DNS may land here too). blocked contains connecting and TLS, so the rest
// is blocked minus both.
func connectionWait(f *facts) *Finding {
	b, cn, t := f.all.Blocked, f.all.Connecting, f.all.TLS
	c := thresholdsOf[connectionWaitThresholds](f.cfg)
	restAvg := b.Avg - cn.Avg - t.Avg
	restTail := b.Tail() - cn.Tail() - t.Tail()
	byAvg := restAvg >= f.floor && restAvg >= float64(c.Share)*b.Avg
	byTail := restTail >= f.floor && restTail >= float64(c.Share)*b.Tail()
	if !byAvg && !byTail || explained(f, lineBlockedRest, byAvg) {
		return nil
	}
	fd := &Finding{Code: CodeConnectionWait, Severity: SeverityWarning, Confidence: ConfidenceMedium, ExplainsMs: max(restAvg, 0)}
	fd.claim(lineBlockedRest, restAvg)
	fd.add("blocked_avg_ms", b.Avg).add("blocked_p95_ms", b.Tail()).add("connecting_avg_ms", cn.Avg).add("tls_avg_ms", t.Avg).add("waiting_for_slot_ms", max(restAvg, restTail))
	fd.Summary = fmt.Sprintf("Requests waited %s for a connection (blocked avg %s, p95 %s) while connecting (%s) and TLS (%s) were quick: the generator waited for a connection slot, or for DNS.",
		metrics.FormatMs(max(restAvg, restTail)), metrics.FormatMs(b.Avg), metrics.FormatMs(b.Tail()), metrics.FormatMs(cn.Avg), metrics.FormatMs(t.Avg))
	fd.Suspect = []string{
		"the generator's connection pool: per-host limits, more requests in flight than connections",
		"DNS resolution (k6 counts it in blocked)",
		"the generator itself being busy",
	}
	fd.Next = []string{
		"time DNS resolution from the generator, or use the IP",
		"check per-host connection limits and HTTP/2 concurrent streams",
		"check the generator's CPU",
	}
	return fd
}
