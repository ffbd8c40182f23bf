package diagnose

import (
	"fmt"
	"strconv"
)

// CodeServerErrors names the application's own errors: it answered 5xx.
const CodeServerErrors = "server-errors"

// serverErrorsThresholds: the server's own error answers.
type serverErrorsThresholds struct {
	Share    Ratio `yaml:"share"`    // at least this share answered 500, 501 or 505–599
	Critical Ratio `yaml:"critical"` // this share or more is critical
}

// serverErrors: the server answered errors of its own — 500, 501 and
// 505–599. A proxy's answers for its upstream (502, 504) are
// upstream-failing's and a limiter's 503 is rate-limited's. The timings of
// a run that failed this much mix two kinds of request: an error page is
// often fast, so read the failures before the timings. Only a file with
// status codes (k6's stream, middlebench's document) can show it.
func serverErrors(f *facts) *Finding {
	w, c := f.w, thresholdsOf[serverErrorsThresholds](f.cfg)
	var n int64
	for k, v := range w.Statuses {
		if s, err := strconv.Atoi(k); err == nil && s >= 500 && s <= 599 && s != 502 && s != 503 && s != 504 {
			n += v
		}
	}
	sh := share(float64(n), float64(w.Requests))
	if n == 0 || sh < float64(c.Share) {
		return nil
	}
	sev := SeverityWarning
	if sh >= float64(c.Critical) {
		sev = SeverityCritical
	}
	fd := &Finding{Code: CodeServerErrors, Severity: sev, Confidence: ConfidenceMedium}
	fd.add("requests", float64(w.Requests)).add("server_errors", float64(n)).add("server_error_share", sh)
	fd.Summary = fmt.Sprintf("%d of %d requests (%s) were answered with a server error%s: the application failed them, "+
		"and the run's timings mix its error pages with its answers.", n, w.Requests, pct(sh), statusList(w.Statuses))
	fd.alternative("", "a proxy or WAF in front that answers 500 for its own faults: "+
		"the server's access log, or its count of errors, tells whose answers they were")
	fd.Suspect = []string{"the application (its logs at the run's time)", "a dependency the application calls (a database, an API)"}
	fd.Next = []string{
		"read the server's error log for the run's time",
		"compare the server's count of 5xx answers with k6's: fewer means a device in front answered them",
	}
	return fd
}
