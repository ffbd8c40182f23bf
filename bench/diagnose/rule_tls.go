package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeTLSHandshakeSlow names rule 2: slow TLS handshakes.
const CodeTLSHandshakeSlow = "tls-handshake-slow"

// tlsThresholds: rule 2.
type tlsThresholds struct {
	Slow         units.Duration `yaml:"slow"`          // a handshake this long is slow
	ConnectRatio Ratio          `yaml:"connect_ratio"` // and this many times the TCP connect (distance)
}

// tlsHandshakeSlow is rule 2: tls_handshaking high — the TLS-terminating LB
// or device lacks capacity, or session resumption does not work. It must
// be high against the TCP connect too, or it is distance (TLS 1.2 costs
// two round trips, TCP one). With reuse the delay shows only in max/p99,
// not the average (E1: 300 ms before the handshake: blocked 316 ms with a
// new connection per request, 3 ms on average with reuse).
func tlsHandshakeSlow(f *facts) *Finding {
	c := thresholdsOf[tlsThresholds](f.cfg)
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
