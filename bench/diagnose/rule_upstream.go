package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeUpstreamFailing: requests fail without an HTTP status (resets,
// EOFs, protocol errors, timeouts): the upstream or a device breaks
// connections; not a block, which answers fast with a 4xx.
const CodeUpstreamFailing = "upstream-failing"

// upstreamThresholds: transport failures.
type upstreamThresholds struct {
	Share    Ratio          `yaml:"share"`    // at least this share failed without a status (or 502/504)
	Critical Ratio          `yaml:"critical"` // this share or more is critical
	Slower   units.Duration `yaml:"slower"`   // without statuses: failures slower than the answers by this are timeouts
}

// upstreamFailing: requests fail without an HTTP status — connections
// reset, closed before an answer (EOF), answered with garbage (protocol
// errors), cut mid-body, or timed out. The upstream (or a device in
// front of it) breaks connections; a blocked tool is answered, fast, with
// a 4xx, so transport failures are not tool-blocked (k6 error codes below
// 1400 and from 1600 on are transport errors: 1000 generic, 1050 timeout,
// 12xx TCP, 13xx TLS, 16xx HTTP/2; 14xx and 15xx are HTTP statuses).
func upstreamFailing(f *facts) *Finding {
	w := f.w
	transport := w.Status(0)
	classes := transportErrors(w.Errors)
	var n int64
	for _, v := range classes {
		n += v
	}
	// A proxy's answer for its upstream: 502 (bad gateway), 504 (its
	// read timed out).
	gateway := w.Status(502) + w.Status(504)
	n = max(n, transport) + gateway
	unanswered := unansweredAtLeast(w)
	// The server answered (nearly) every request with a success, yet k6
	// saw some fail: the answers broke on their way back (a cut
	// connection, a byte limit). Only a file without k6's statuses needs
	// the server's word for it.
	brokenAfter := !statusesKnown(w) && n == 0 && w.Failed > 0 && servedAllOK(f)
	slow := !statusesKnown(w) && n == 0 && slowFailures(f)
	byBytes := n == 0 && !statusesKnown(w) && unanswered > 0
	if byBytes {
		n = min(unanswered, w.Failed)
	}
	if slow || brokenAfter {
		n = w.Failed
	}
	c := thresholdsOf[upstreamThresholds](f.cfg)
	if w.Requests == 0 || n == 0 || share(float64(n), float64(w.Requests)) < float64(c.Share) {
		return nil
	}
	sh := share(float64(n), float64(w.Requests))
	sev := SeverityWarning
	if sh >= float64(c.Critical) {
		sev = SeverityCritical
	}
	conf := ConfidenceMedium
	if len(classes) > 0 {
		conf = ConfidenceHigh
	}
	if byBytes || slow {
		conf = ConfidenceLow
	}
	if brokenAfter {
		conf = ConfidenceMedium
	}
	fd := &Finding{Code: CodeUpstreamFailing, Severity: sev, Confidence: conf, ExplainsMs: f.all.Duration.Avg * sh}
	// Where the file does not set the failures apart (a summary, or all
	// failed), their share of the phases is the time until the connection
	// broke: the failure's, not a path's latency.
	if f.served == f.all {
		fd.claim(lineOutside, f.outside*sh).claim(lineServer, (f.srv.Avg+f.queue.Avg)*sh)
	}
	fd.add("requests", float64(w.Requests)).add("transport_failures", float64(n)).add("transport_failure_share", sh)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(classes)) {
		fd.add("errors_"+k, float64(classes[k]))
		parts = append(parts, fmt.Sprintf("%s %d", k, classes[k]))
	}
	if f.srvRequests >= 0 {
		fd.add("server_requests", float64(f.srvRequests))
	}
	fd.add("duration_avg_ms", f.all.Duration.Avg)
	if byBytes {
		fd.add("data_received", float64(w.DataReceived)).add("min_http_answer_bytes", minAnswer)
	}
	if gateway > 0 {
		fd.add("status_502", float64(w.Status(502))).add("status_504", float64(w.Status(504)))
	}
	fd.Summary = fmt.Sprintf("%d of %d requests (%s) failed without an HTTP status or with a proxy's 502/504 for its upstream", n, w.Requests, pct(sh))
	if slow {
		fd.Summary = fmt.Sprintf("%d of %d requests failed, slower on average than the answers (the file has no status codes): "+
			"failures that wait are timeouts — a proxy giving up on its upstream (504) or connections that hang", w.Failed, w.Requests)
	}
	if brokenAfter {
		fd.Summary = fmt.Sprintf("%d of %d requests failed, yet the server answered %d with a success (the file has no status codes; k6's NDJSON has them)",
			w.Failed, w.Requests, f.srvRequests)
	}
	if byBytes {
		fd.Summary = fmt.Sprintf("%d of %d requests failed and %s came back in all, less than a status line (%d B) each: at least %d got no HTTP answer "+
			"(the file has no status codes or error classes; k6's NDJSON has them)", w.Failed, w.Requests, fmtBytes(float64(w.DataReceived)), minAnswer, n)
	}
	if len(parts) > 0 {
		fd.Summary += " (" + strings.Join(parts, ", ") + ")"
	}
	fd.Summary += ": the connection broke before an answer — reset, closed, garbled, cut or timed out. Something in the path or the upstream fails; nothing rejected the tool."
	fd.Suspect = []string{
		"the upstream crashing, restarting or out of connections (resets, EOFs)",
		"a proxy or load balancer with no healthy upstream, or an idle/read timeout shorter than the response",
		"a device cutting connections (limit on bytes, a TCP reset rule) or speaking another protocol",
	}
	fd.Next = []string{
		"read one failed request's error (k6's error and error_code tags in --out json) and the proxy's error log",
		"check the upstream's health and restarts, and the proxies' timeouts and connection limits",
		"put a threshold on http_req_failed so that such a run fails",
	}
	return fd
}

// transportErrors keeps the error classes that are not an HTTP status: a
// k6 error_code outside 1400–1599, or a class name (middlebench's
// document: reset, eof, protocol, timeout, refused, tls…).
func transportErrors(errs map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range errs {
		if n, err := strconv.Atoi(k); err == nil {
			if n >= 1400 && n < 1600 {
				continue
			}
			k = k6ErrorName(n)
		} else if strings.HasPrefix(k, "http") || strings.HasPrefix(k, "status") {
			continue
		}
		out[k] += v
	}
	return out
}

// k6ErrorName names a k6 error code by its range (k6's error codes page).
func k6ErrorName(n int) string {
	switch {
	case n == 1050:
		return "timeout"
	case n == 1220:
		return "reset"
	case n == 1212:
		return "refused"
	case n >= 1100 && n < 1200:
		return "dns"
	case n >= 1200 && n < 1300:
		return "tcp"
	case n >= 1300 && n < 1400:
		return "tls"
	case n >= 1600 && n < 1700:
		return "http2"
	}
	return "k6_" + strconv.Itoa(n)
}

// minAnswer is the shortest HTTP/1.1 answer: "HTTP/1.1 200 OK\r\n\r\n"
// less the reason, the least any request with a status received.
const minAnswer = 17

// unansweredAtLeast bounds from below the requests that got no HTTP answer
// from a file without statuses: had every request one, data_received
// would hold at least minAnswer bytes each.
func unansweredAtLeast(w *Window) int64 {
	if !w.hasReceived || w.Requests == 0 {
		return 0
	}
	short := minAnswer*w.Requests - w.DataReceived
	if short <= 0 {
		return 0
	}
	return (short + minAnswer - 1) / minAnswer
}

// slowFailures: a summary's failures took longer on average than its
// expected responses (totals against the expected_response:true
// sub-metric): timeouts, not a limiter's or a block's fast answer.
func slowFailures(f *facts) bool {
	w := f.w
	if w.OK == nil || !w.OK.Duration.Present() || w.Failed <= 0 || w.Failed >= w.Requests {
		return false
	}
	ok, all := w.OK.Duration.Avg, f.all.Duration.Avg
	avg := (all*float64(w.Requests) - ok*float64(w.Requests-w.Failed)) / float64(w.Failed)
	return avg >= ok && avg-ok >= timing.Millis(thresholdsOf[upstreamThresholds](f.cfg).Slower)
}

// servedAllOK: the server counted (nearly) every request k6 sent and
// answered none of them with a failure (its own statuses say so).
func servedAllOK(f *facts) bool {
	w, srv := f.w, f.obs.Server
	if f.srvRequests < 0 || srv == nil || len(srv.Statuses) == 0 ||
		float64(f.srvRequests) < (1-float64(thresholdsOf[upstreamThresholds](f.cfg).Share))*float64(w.Requests) {
		return false
	}
	for k, v := range srv.Statuses {
		if statusFailed(k) && v > 0 {
			return false
		}
	}
	return true
}
