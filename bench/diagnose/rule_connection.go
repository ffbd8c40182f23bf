package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// Connection phases happen only on a new connection: with k6's default
// reuse, most requests have 0 and only the first one per VU pays, so the
// rules read the p95 when most requests handshake and the max otherwise.

// connValue returns the value to judge a connection phase by and whether
// most requests paid it.
func connValue(s Stat) (float64, bool) {
	switch {
	case s.P95 > 0:
		return s.P95, true
	case s.Max > 0 || s.P99 > 0:
		return s.Peak(), false
	}
	return s.Avg, true // only an average was given
}

// explained: the time of a connection phase that a cause found before
// accounts for. A saturated generator is slow at everything, opening
// connections included (rule 10: all phases grow together): when only a
// few requests paid a connection phase — the max, not the p95 — the
// generator claims those tails (lineConnTails), and they are its symptom,
// not a finding of their own.
//
// A few slow connection phases are also explained when the host itself
// stalled as long: the server's own time has a tail of a comparable size
// (its max a quarter of the phase's peak or more above its median), so
// the few dials or handshakes of that moment paid the host's stall, not
// the terminator's or the network's cost.
func explained(f *facts, l line, most bool) bool {
	c := f.cfg.ConnTails
	if f.b.unclaimed(l) < float64(c.Explained) || !most && f.b.unclaimed(lineConnTails) == 0 {
		return true
	}
	var peak float64
	switch l {
	case lineTLS:
		peak = f.all.TLS.Peak()
	case lineConnecting:
		peak = f.all.Connecting.Peak()
	}
	return !most && f.hasServer && f.srv.Med > 0 && peak > 0 && f.srv.Max-f.srv.Med >= float64(c.HostStall)*peak
}

// tlsHandshakeSlow is rule 2: tls_handshaking high — the TLS-terminating LB
// or device lacks capacity, or session resumption does not work. It must
// be high against the TCP connect too, or it is distance (TLS 1.2 costs
// two round trips, TCP one). With reuse the delay shows only in max/p99,
// not the average (E1: 300 ms before the handshake: blocked 316 ms with a
// new connection per request, 3 ms on average with reuse).
func tlsHandshakeSlow(f *facts) *Finding {
	c := f.cfg.TLS
	v, most := connValue(f.all.TLS)
	cv, _ := connValue(f.all.Connecting)
	// Against distance the typical handshake is read (the median, where
	// most requests paid one): TLS 1.2 costs two round trips where TCP
	// costs one, and a loaded host's slowest handshakes are not the
	// terminator's (150 ms RTT: median 2 round trips, p95 3.3).
	typical, typicalConnect := v, cv
	if t, cn := f.all.TLS, f.all.Connecting; most && t.Med > 0 && cn.Med > 0 {
		typical, typicalConnect = t.Med, cn.Med
	}
	if v < timing.Millis(c.Slow) || typical < float64(c.ConnectRatio)*typicalConnect || explained(f, lineTLS, most) {
		return nil
	}
	fd := &Finding{Code: CodeTLSHandshakeSlow, Severity: SeverityWarning, Confidence: ConfidenceHigh, ExplainsMs: f.all.TLS.Avg}
	fd.claim(lineTLS, f.all.TLS.Avg)
	fd.add("tls_avg_ms", f.all.TLS.Avg).add("tls_p95_ms", f.all.TLS.Tail()).add("tls_max_ms", f.all.TLS.Peak()).add("connecting_ms", cv)
	if most {
		fd.Summary = fmt.Sprintf("TLS handshakes take %s (p95) against %s for the TCP connect: the TLS terminator is slow to handshake. http_req_duration leaves it out.",
			metrics.FormatMs(v), metrics.FormatMs(cv))
	} else {
		fd.Severity = SeverityInfo
		fd.Summary = fmt.Sprintf("A TLS handshake took up to %s (max), but k6 reused connections, so few requests paid it (avg %s). "+
			"Real users connect on every visit and would pay it each time.", metrics.FormatMs(v), metrics.FormatMs(f.all.TLS.Avg))
	}
	fd.Suspect = []string{
		"the capacity of the TLS-terminating load balancer or device",
		"session resumption not working (tickets / session IDs)",
		"certificate chain or OCSP checks on the terminator",
	}
	fd.Next = []string{
		"re-run with noConnectionReuse (or noVUConnectionReuse) to see what every new visitor pays",
		"check the terminator's handshake rate, CPU and session resumption",
		"compare with connecting: when both are high it is distance, not TLS",
	}
	return fd
}

// connectSlow is rule 1: connecting high — distance (RTT) between
// generator and server, a firewall or LB limiting new connections, or a
// server with no room to accept (SYN drops show as 1 s, 3 s steps).
func connectSlow(f *facts) *Finding {
	v, most := connValue(f.all.Connecting)
	if v < timing.Millis(f.cfg.Connect.Slow) || explained(f, lineConnecting, most) {
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

// connectionWait is rule 3: blocked high while connecting and
// tls_handshaking are low — the generator waited for a connection slot
// (DNS may land here too). blocked contains connecting and TLS, so the rest
// is blocked minus both.
func connectionWait(f *facts) *Finding {
	b, cn, t := f.all.Blocked, f.all.Connecting, f.all.TLS
	c := f.cfg.ConnWait
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

// hiddenConnectionCost is the article's consequence 1: connection setup
// (blocked, which holds connecting and TLS) is outside http_req_duration.
// When it is large against duration, a duration-only view or threshold
// misses what users who connect pay (E1: duration 54 ms in all three runs,
// blocked 316 ms with a new connection per request).
func hiddenConnectionCost(f *facts) *Finding {
	b, d := f.all.Blocked, f.all.Duration
	s := float64(f.cfg.Hidden.Share)
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
