package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// honesty says what the file cannot show and which file would tell, so
// that a reader does not take a missing finding for a healthy run.
func (r *Report) honesty(obs *Observation, f *facts) {
	summary := obs.Format == FormatSummaryExport || obs.Format == FormatHandleSummary || obs.Format == FormatText
	if summary && len(obs.Steps) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s holds totals only: no steps, so a sweep's throughput ceiling or knee cannot be seen "+
			"(k6's --out json NDJSON shows the run step by step)", obs.Format))
	}
	if obs.Failed > 0 && !statusesKnown(&obs.Window) && len(obs.Errors) == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d requests failed and the file has no status codes or error classes "+
			"(a summary has only the failed share; handleSummary only with tagged sub-metrics): 429s, 403s and transport errors "+
			"cannot be told apart — k6's NDJSON (status and error_code tags) would tell", obs.Failed))
	}
	if obs.okWaitingEstimated && f.served != f.all {
		r.Notes = append(r.Notes, "the expected responses' waiting is estimated from their duration (the file has only http_req_duration{expected_response:true}) "+
			"less the run's average sending and receiving: k6's NDJSON has it exactly")
	}
	if f.hasServer && f.outside < 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("outside server is not shown: the average waiting (%s) is below the server's time (%s), "+
			"so it mixes requests the server never timed (fast failures); the file does not separate them", metrics.FormatMs(f.served.Waiting.Avg), metrics.FormatMs(f.srv.Avg+f.queue.Avg)))
	}
}
