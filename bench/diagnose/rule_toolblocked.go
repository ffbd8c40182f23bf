package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeToolBlocked names rule 9: the tool itself is refused.
const CodeToolBlocked = "tool-blocked"

// toolBlockedThresholds: rule 9.
type toolBlockedThresholds struct {
	Failed      Ratio          `yaml:"failed"`       // at least this share failed
	ServerShare Ratio          `yaml:"server_share"` // the server saw at most this share
	Fast        units.Duration `yaml:"fast"`         // failures answered faster than this
	MinRequests int64          `yaml:"min_requests"` // fewer requests are not judged
	Blocking    Ratio          `yaml:"blocking"`     // with statuses: at least this share of the failures are 401/403/406/451
	FastServer  Ratio          `yaml:"fast_server"`  // or failures faster than this share of the server's time
}

// toolBlocked is rule 9: (nearly) all requests fail fast, mostly with 403,
// TPS is extreme and the average tiny, and the server saw few or none. A
// security device rejects the tool itself (its User-Agent, its IP, its
// request pattern): the run measured the device's rejections, and its TPS
// and average are meaningless (E6: 240 k requests all failed at 40,574 TPS,
// 0.1 ms on average, the server saw 0).
func toolBlocked(f *facts) *Finding {
	w, c := f.w, thresholdsOf[toolBlockedThresholds](f.cfg)
	if w.Requests < c.MinRequests || share(float64(w.Failed), float64(w.Requests)) < float64(c.Failed) {
		return nil
	}
	blocking := w.Status(401) + w.Status(403) + w.Status(406) + w.Status(451)
	known := statusesKnown(w)
	serverFew := f.srvRequests >= 0 && float64(f.srvRequests) <= float64(c.ServerShare)*float64(w.Requests)
	// Every request refused and the server saw none is a block whatever
	// status it answers (a deny rule answering 429); otherwise failures
	// of another kind (5xx, 429, resets) are not a block.
	refusedAll := w.Failed == w.Requests && serverFew
	if known && float64(blocking) < float64(c.Blocking)*float64(w.Failed) && !refusedAll {
		return nil
	}
	// Without status codes some requests passing is a limiter's pattern
	// (it lets its rate through; a block lets none): rate-limited names
	// it, with the block as its alternative.
	if !known && w.Failed < w.Requests {
		return nil
	}
	// A block stops requests before the server: a server that counted
	// (nearly) every failed request served them, whatever k6 made of the
	// answers.
	if f.srvRequests >= 0 && float64(f.srvRequests) >= (1-float64(c.ServerShare))*float64(w.Failed) {
		return nil
	}
	dur := f.all.Duration.Avg
	fast := dur <= timing.Millis(c.Fast) || (f.hasServer && dur < float64(c.FastServer)*f.srv.Avg)
	if !fast && !serverFew {
		return nil
	}
	conf := ConfidenceMedium
	if serverFew && (fast || blocking > 0) {
		conf = ConfidenceHigh
	}
	fd := &Finding{Code: CodeToolBlocked, Severity: SeverityCritical, Confidence: conf,
		ExplainsMs: max(dur, f.srv.Avg)}
	fd.add("requests", float64(w.Requests)).add("failed_share", share(float64(w.Failed), float64(w.Requests)))
	if known {
		fd.add("status_403", float64(w.Status(403)))
	}
	fd.add("duration_avg_ms", dur).add("rps", w.RPS())
	seen := "an unknown number"
	if f.srvRequests >= 0 {
		fd.add("server_requests", float64(f.srvRequests))
		seen = fmt.Sprint(f.srvRequests)
	}
	with := fmt.Sprintf("%d of them with 403", w.Status(403))
	if !known {
		with = "none passed (the file has no status codes)"
		fd.alternative(CodeRateLimited, "a rate limiter answers as fast, and one with a low limit may reject every request: "+
			"k6's summary cannot tell a limiter (429) from a block (403) — its NDJSON (status tag) or the limiter's count would")
		fd.alternative(CodeUpstreamFailing, "an upstream that answers bytes that are not HTTP, or cuts its answer, fails as fast: "+
			"k6's NDJSON (error_code tag: 1000s for transport errors, 14xx for statuses) or the server's own count would tell")
	}
	if known && float64(blocking) < float64(c.Blocking)*float64(w.Failed) {
		with = fmt.Sprintf("%d of them with 403, %d with 429", w.Status(403), w.Status(429))
		fd.alternative(CodeRateLimited, "a rate limiter whose limit this client never fits answers 429 to every request too: "+
			"the device's rule (a deny by User-Agent or address, or a limit) or its log would tell")
	}
	fd.Summary = fmt.Sprintf("%d of %d requests (%s) failed, %s, in %s on average at %.0f req/s, and the server saw %s: "+
		"something in the path rejects the tool itself. The TPS and the average are those of the rejections, not of the service.",
		w.Failed, w.Requests, pct(share(float64(w.Failed), float64(w.Requests))), with, metrics.FormatMs(dur), w.RPS(), seen)
	fd.Suspect = []string{
		"a WAF or bot protection blocking the tool's User-Agent (k6's default \"Grafana k6/<version>\") or request pattern",
		"an IP block or geo rule on the generator's address",
		"a missing credential the device expects (API key, cookie)",
	}
	fd.Next = []string{
		"agree an allow-list with the security team (a test header with a secret, the generators' IPs, a test window), and run once with it and once without",
		"put a threshold on http_req_failed (rate<0.01) so that such a run fails instead of looking fast",
		"read one rejected response (status, body, headers) and the device's log",
	}
	return fd
}

// statusesKnown reports whether the window counts statuses (k6's summary
// files do not).
func statusesKnown(w *Window) bool {
	for k := range w.Statuses {
		if k != "unknown" {
			return true
		}
	}
	return false
}
