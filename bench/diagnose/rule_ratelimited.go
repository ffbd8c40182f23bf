package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// CodeRateLimited names rule 8: a rate limiter rejects requests.
const CodeRateLimited = "rate-limited"

// rateLimitedThresholds: rule 8.
type rateLimitedThresholds struct {
	Share Ratio `yaml:"share"` // at least this share rejected (429, a fast 503)
	// Fast: without statuses, failures faster than this share of the
	// served requests' duration are a limiter's answers (and a 503 that
	// fast is nginx's limit_req).
	Fast Ratio `yaml:"fast"`
	// Skipped: or short of the served requests by this share of the
	// server's time (rejected on a path that adds latency before the
	// limiter: the rejections pay the path, not the server).
	Skipped Ratio `yaml:"skipped"`
}

// rateLimited is rule 8: failures with 429, the server saw fewer requests
// than were sent, and the average is below the server's own time — a device
// rate-limits. Fast rejections pull the average and lift the TPS, so the
// run looks better than it is (E5: 200/s against 100/s allowed, 44.5 %
// failed, average 28.5 ms below the server's 50 ms). Without status codes
// (k6's summaries) the rule needs the server's count to say so.
func rateLimited(f *facts) *Finding {
	w, c := f.w, thresholdsOf[rateLimitedThresholds](f.cfg)
	if w.Requests == 0 {
		return nil
	}
	n403 := fast403(f)
	n429 := w.Status(429) + fast503(f) + n403
	conf := ConfidenceHigh
	failed := share(float64(w.Failed), float64(w.Requests))
	fewer := f.hasServer && f.srvRequests >= 0 && float64(f.srvRequests) < float64(w.Requests)*(1-float64(c.Share)) && f.all.Duration.Avg < f.srv.Avg
	switch {
	case statusesKnown(w):
		if n429 == 0 || share(float64(n429), float64(w.Requests)) < float64(c.Share) {
			return nil
		}
	case failed >= float64(c.Share) && (fewer || fastFailures(f) > 0):
		// Status codes not in the file (k6's summaries): the failures stand
		// in, fast (a limiter answers before the server works) or unseen
		// by the server. A transport error is fast too: medium at best.
		conf, n429 = ConfidenceMedium, w.Failed
		if !fewer {
			conf = ConfidenceLow
		}
	default:
		return nil
	}
	all := f.all.Duration.Avg
	fd := &Finding{Code: CodeRateLimited, Severity: SeverityWarning, Confidence: conf}
	fd.add("requests", float64(w.Requests)).add("rejected", float64(n429)).add("rejected_share", share(float64(n429), float64(w.Requests)))
	if f.srvRequests >= 0 {
		fd.add("server_requests", float64(f.srvRequests))
	}
	fd.add("duration_avg_ms", all)
	passed := 0.0
	if w.OK != nil && w.OK.Duration.Present() {
		passed = w.OK.Duration.Avg
		fd.add("duration_ok_avg_ms", passed)
	}
	if f.hasServer {
		fd.add("server_time_avg_ms", f.srv.Avg)
		if passed == 0 {
			passed = f.srv.Avg
		}
	}
	if w.Seconds > 0 {
		fd.add("passed_rps", float64(w.Requests-n429)/w.Seconds)
	}
	for _, g := range f.obs.ByStatus { // a stream says how fast the rejections came back
		if g.Key == "429" && f.name == "" {
			fd.add("rejected_duration_avg_ms", g.Phases.Duration.Avg)
		}
	}
	if ff := fastFailures(f); ff > 0 && !statusesKnown(w) {
		fd.add("failed_duration_avg_ms", ff)
	}
	fd.ExplainsMs = max(passed-all, 0)
	what := "were answered 429"
	if n503 := fast503(f); n503 > 0 {
		what = fmt.Sprintf("were rejected: %d answered 429, %d a fast 503 (nginx's limit_req default)", w.Status(429), n503)
	}
	if n403 > 0 {
		what = fmt.Sprintf("were rejected fast, %d of them with 403, while %d passed", n403, w.Requests-w.Failed)
		fd.alternative(CodeToolBlocked, "a block of some requests (a WAF rule on some of them) answers 403 as fast: "+
			"the device's rule or log would tell (a limiter's rejections follow the rate, a rule's the requests' content)")
	}
	switch {
	case !statusesKnown(w) && fewer:
		what = "failed (the file has no status codes) while the server saw fewer requests than were sent"
	case !statusesKnown(w):
		what = fmt.Sprintf("failed, in %s on average against %s for the others: rejected before any work (the file has no status codes; k6's NDJSON would tell a 429 from a transport error)",
			metrics.FormatMs(fastFailures(f)), metrics.FormatMs(w.OK.Duration.Avg))
	}
	fd.Summary = fmt.Sprintf("%d of %d requests (%s) %s.", n429, w.Requests, pct(share(float64(n429), float64(w.Requests))), what)
	if passed > all {
		fd.Summary += fmt.Sprintf(" The average duration %s is below the %s the served requests took: fast rejections pull the average down and the TPS up — do not read this run as healthy.",
			metrics.FormatMs(all), metrics.FormatMs(passed))
	}
	if !statusesKnown(w) {
		fd.alternative(CodeUpstreamFailing, "a proxy's fast 502 for an upstream it will not open (a connection limit such as nginx's max_conns) "+
			"answers as fast and also before the server: k6's NDJSON (status tag) or the proxy's log would tell")
		fd.alternative(CodeToolBlocked, "a block (403 from a WAF or an IP rule) answers fast too: k6's summary cannot tell a rate limiter (429) "+
			"from a block (403) — its NDJSON (status tag) or the device's count would; some requests passed, which a limiter does and a block rarely")
	}
	fd.Suspect = []string{
		"a rate limiter in front of the server (WAF, API gateway, load balancer) allowing fewer requests per second than the test sends",
		"the server's own rate limiting",
	}
	fd.Next = []string{
		"read the failure rate and the status codes, not only the average; put a threshold on http_req_failed",
		"compare the requests sent with the requests the server (APM) counted",
		"ask for the limiter's policy (RateLimit-Policy, Retry-After) and test below it, or agree an exception for the test",
	}
	return fd
}

// fastFailures returns the failed requests' average duration when a
// summary's totals and its expected_response:true sub-metric give it
// and it is fast against the served requests' (0 otherwise): what a
// limiter's rejections look like in a file without status codes.
func fastFailures(f *facts) float64 {
	w := f.w
	if w.OK == nil || !w.OK.Duration.Present() || w.Failed <= 0 || w.Failed >= w.Requests {
		return 0
	}
	ok, all := w.OK.Duration.Avg, f.all.Duration.Avg
	avg := (all*float64(w.Requests) - ok*float64(w.Requests-w.Failed)) / float64(w.Failed)
	// Fast: a quarter of the served requests' time, or short of it by most
	// of the server's own time (rejected on a path that adds latency
	// before the limiter: the rejections pay the path, not the server).
	c := thresholdsOf[rateLimitedThresholds](f.cfg)
	skipped := f.hasServer && avg <= ok-float64(c.Skipped)*f.srv.Avg
	if avg < 0 || avg > float64(c.Fast)*ok && !skipped {
		return 0
	}
	return max(avg, 1e-3)
}

// fast503 counts the 503s that are a limiter's rejections (nginx's
// limit_req answers 503 by default).
func fast503(f *facts) int64 { return fastRejections(f, 503) }

// fast403 counts the 403s that are a limiter's rejections (limit_req_status
// 403): only while some requests passed — a block that refuses every
// request is tool-blocked's.
func fast403(f *facts) int64 {
	if f.w.Failed >= f.w.Requests {
		return 0
	}
	return fastRejections(f, 403)
}

// fastRejections counts the answers with status code that a limiter gave:
// answered in under rate_limited.fast of the served requests' time, or
// never seen by the server.
func fastRejections(f *facts, code int) int64 {
	w := f.w
	n := w.Status(code)
	if n == 0 {
		return 0
	}
	key := fmt.Sprint(code)
	ok := 0.0
	for _, g := range f.obs.ByStatus {
		if g.Key == "200" {
			ok = g.Phases.Duration.Avg
		}
	}
	for _, g := range f.obs.ByStatus {
		if g.Key == key && ok > 0 {
			if g.Phases.Duration.Avg <= float64(thresholdsOf[rateLimitedThresholds](f.cfg).Fast)*ok {
				return n
			}
			return 0
		}
	}
	if f.srvRequests >= 0 && f.srvRequests <= w.Requests-n {
		return n
	}
	return 0
}
