package diagnose

import "fmt"

// rateLimited is rule 8: failures with 429, the server saw fewer requests
// than were sent, and the average is below the server's own time — a device
// rate-limits. Fast rejections pull the average and lift the TPS, so the
// run looks better than it is (E5: 200/s against 100/s allowed, 44.5 %
// failed, average 28.5 ms below the server's 50 ms). Without status codes
// (k6's summaries) the rule needs the server's count to say so.
func rateLimited(f *facts) *Finding {
	w, c := f.w, f.cfg.RateLimited
	if w.Requests == 0 {
		return nil
	}
	n429 := w.Status(429)
	conf := ConfidenceHigh
	switch {
	case statusesKnown(w):
		if n429 == 0 || share(float64(n429), float64(w.Requests)) < float64(c.Share) {
			return nil
		}
	case share(float64(w.Failed), float64(w.Requests)) >= float64(c.Share) && f.hasServer && f.srvRequests >= 0 &&
		float64(f.srvRequests) < float64(w.Requests)*(1-float64(c.Share)) && f.all.Duration.Avg < f.srv.Avg:
		conf, n429 = ConfidenceMedium, w.Failed // status codes not in the file: the failures stand in
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
	fd.ExplainsMs = max(passed-all, 0)
	what := "were answered 429"
	if conf == ConfidenceMedium {
		what = "failed (the file has no status codes) while the server saw fewer requests than were sent"
	}
	fd.Summary = fmt.Sprintf("%d of %d requests (%s) %s.", n429, w.Requests, pct(share(float64(n429), float64(w.Requests))), what)
	if passed > all {
		fd.Summary += fmt.Sprintf(" The average duration %s is below the %s the served requests took: fast rejections pull the average down and the TPS up — do not read this run as healthy.",
			fmtMs(all), fmtMs(passed))
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
