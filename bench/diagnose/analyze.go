package diagnose

import (
	"fmt"
	"sort"
	"strings"
)

// windowRule judges one window (the whole run or one step). Rules run in
// this order and see what fired before them in the same window, so that a
// rule whose symptom another cause explains stays silent (path-latency
// after generator-saturated, upload-limited and closed-model-backlog;
// server-slow after upload-limited; the backlog after the phase rules that
// place a queue).
type windowRule struct {
	code  string
	check func(*facts) *Finding
}

var windowRules = []windowRule{
	{CodeToolBlocked, toolBlocked},
	{CodeRateLimited, rateLimited},
	{CodeGeneratorSaturated, generatorSaturated},
	{CodeUploadLimited, uploadLimited},
	{CodeDownloadLimited, downloadLimited},
	{CodeClosedModelBacklog, closedModelBacklog},
	{CodeServerSlow, serverSlow},
	{CodePathLatency, pathLatency},
	{CodeTLSHandshakeSlow, tlsHandshakeSlow},
	{CodeConnectSlow, connectSlow},
	{CodeConnectionWait, connectionWait},
	{CodeHiddenConnectionCost, hiddenConnectionCost},
}

// Analyze applies the rules to the whole run and to each step of a sweep
// (steps with fewer than MinRequests requests are not judged alone), then
// the sweep rules across the steps. A finding that holds in some steps
// lists them. Findings are ordered by the time they explain; "healthy"
// stands alone when nothing fires and nothing is left unexplained.
func Analyze(obs *Observation, cfg Config) Report {
	if obs == nil {
		return Report{Findings: []Finding{}, Notes: []string{"nothing to analyse"}}
	}
	whole := newFacts(&cfg, obs, &obs.Window, "")
	r := newReport(obs, whole)
	merged := map[string]*Finding{}
	genSweep, genSteps := generatorSweep(obs, &cfg)
	ceiling := throughputCeiling(obs, &cfg)
	past := map[string]bool{}
	if ceiling != nil {
		for _, n := range ceiling.Steps {
			past[n] = true
		}
		whole.pastCeiling = true
	}
	judge := func(f *facts) {
		for _, rule := range windowRules {
			if f.fired[rule.code] != nil {
				continue // given by a sweep
			}
			if fd := rule.check(f); fd != nil {
				f.fired[rule.code] = fd
				merge(merged, fd, f.name)
			}
		}
	}
	// Steps first: a cause found in a step silences its symptoms in the
	// whole run, where loads are mixed (Little's law, for one, does not
	// hold over a sweep).
	for i := range obs.Steps {
		s := &obs.Steps[i]
		if s.Requests < cfg.MinRequests {
			continue
		}
		f := newFacts(&cfg, obs, &s.Window, s.Name)
		f.pastCeiling = past[s.Name]
		if genSteps[s.Name] {
			f.fired[CodeGeneratorSaturated] = genSweep
		}
		judge(f)
	}
	for code, fd := range merged {
		whole.fired[code] = fd
	}
	if genSweep != nil {
		whole.fired[CodeGeneratorSaturated] = genSweep
	}
	judge(whole)
	if genSweep != nil {
		for i := range obs.Steps {
			if genSteps[obs.Steps[i].Name] {
				genSweep.Steps = append(genSweep.Steps, obs.Steps[i].Name)
			}
		}
		merged[CodeGeneratorSaturated] = genSweep
	} else if ceiling != nil && merged[CodeToolBlocked] == nil {
		merged[ceiling.Code] = ceiling
	}
	for _, sweep := range []func(*Observation, *Config) *Finding{downloadSweep, serverSweep} {
		if fd := sweep(obs, &cfg); fd != nil && merged[fd.Code] == nil && merged[CodeGeneratorSaturated] == nil && merged[CodeToolBlocked] == nil {
			merged[fd.Code] = fd
		}
	}
	concerns := r.concerns(whole, merged)
	for _, fd := range merged {
		r.Findings = append(r.Findings, *fd)
	}
	if len(r.Findings) == 0 && !concerns {
		r.Findings = append(r.Findings, healthy(whole))
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.ExplainsMs != b.ExplainsMs {
			return a.ExplainsMs > b.ExplainsMs
		}
		if a.Severity.rank() != b.Severity.rank() {
			return a.Severity.rank() > b.Severity.rank()
		}
		return a.Code < b.Code
	})
	return r
}

// merge records a finding: once per code, with the evidence of the window
// where it explains most, and the steps where it held.
func merge(m map[string]*Finding, fd *Finding, step string) {
	cp := *fd
	old := m[fd.Code]
	if old == nil {
		if step != "" {
			cp.Steps = []string{step}
		}
		m[fd.Code] = &cp
		return
	}
	steps := old.Steps
	if step != "" {
		steps = append(steps, step)
	}
	if fd.ExplainsMs > old.ExplainsMs {
		*old = cp
	}
	old.Steps = steps
}

// concerns notes what no rule explains but a reader should not call
// healthy: high waiting without the server's time to split it, a server
// queue no finding places, failures of no known kind, failed thresholds.
// It reports whether any was found.
func (r *Report) concerns(f *facts, merged map[string]*Finding) bool {
	found := false
	explained := func(codes ...string) bool {
		for _, c := range codes {
			if merged[c] != nil {
				return true
			}
		}
		return false
	}
	wait := f.served.Waiting.Tail()
	if !f.hasServer && wait >= ms(f.cfg.ServerSlow.Slow) &&
		!explained(CodeClosedModelBacklog, CodeGeneratorSaturated, CodeUploadLimited, CodeToolBlocked, CodeThroughputCeiling, CodeDownloadLimited) {
		r.Notes = append(r.Notes, fmt.Sprintf("waiting p95 is %s and the file has no server time: give the server's own time "+
			"(--server-avg/--server-p95 from the APM, --server-stats, or a Server-Timing trend) to tell the server (rule 5) from the path (rule 6)", fmtMs(wait)))
		found = true
	}
	// A queue in front of the server's workers is a cause only a rule can
	// name (a backlog, a server past capacity). A summary of a sweep mixes
	// its loads, so no rule may hold over the whole run (seed 003's closed
	// sweep: p95 2 s, 733 ms in the queue, Little's law not holding for the
	// mixed VUs): that is not healthy.
	if f.hasServer && f.queue.Avg >= f.floor && !explained(CodeClosedModelBacklog, CodeServerSlow, CodeThroughputCeiling, CodeToolBlocked) {
		r.Notes = append(r.Notes, fmt.Sprintf("the server's queue averages %s (p95 %s) of the %s waiting and no finding explains it: "+
			"requests waited for a worker. A summary mixes the run's loads; analyse k6's NDJSON (--out json) per step, "+
			"with --executor, to see at which load the queue builds and why", fmtMs(f.queue.Avg), fmtMs(f.queue.Tail()), fmtMs(f.served.Waiting.Avg)))
		found = true
	}
	w := f.w
	if w.Requests == 0 && !f.all.Duration.Present() {
		r.Notes = append(r.Notes, "the file holds no requests: nothing to judge")
		found = true
	}
	if fs := share(float64(w.Failed), float64(w.Requests)); fs >= float64(f.cfg.RateLimited.Share) && !explained(CodeRateLimited, CodeToolBlocked) {
		r.Notes = append(r.Notes, fmt.Sprintf("%d of %d requests failed (%s)%s: read the failures before the timings", w.Failed, w.Requests, pct(fs), statusList(w.Statuses)))
		found = true
	}
	for _, t := range f.obs.Thresholds {
		if t.Failed {
			r.Notes = append(r.Notes, fmt.Sprintf("threshold %s %s failed", t.Metric, t.Source))
		}
	}
	return found
}

func statusList(m map[string]int64) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		if statusFailed(k) {
			parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ", statuses " + strings.Join(parts, ", ")
}

// healthy: nothing stands out.
func healthy(f *facts) Finding {
	d := f.served.Duration
	fd := Finding{Code: CodeHealthy, Severity: SeverityInfo, Confidence: ConfidenceMedium, Suspect: []string{}}
	fd.add("duration_avg_ms", d.Avg).add("duration_p95_ms", d.Tail()).add("waiting_avg_ms", f.served.Waiting.Avg)
	if f.hasServer {
		fd.Confidence = ConfidenceHigh
		fd.add("server_time_avg_ms", f.srv.Avg).add("outside_server_ms", f.outside)
	}
	fd.add("failed_share", share(float64(f.w.Failed), float64(f.w.Requests))).add("rps", f.w.RPS())
	fd.Summary = fmt.Sprintf("Nothing stands out: duration %s (p95 %s)", fmtMs(d.Avg), fmtMs(d.Tail()))
	if f.hasServer {
		fd.Summary += fmt.Sprintf(", of which the server accounts for %s", fmtMs(f.srv.Avg))
	}
	fd.Summary += "; connection setup, uploads, downloads and failures are small."
	fd.Next = []string{"to see what users on the real path get, run the same scenario through it and compare phase by phase (rule 11)"}
	if !f.hasServer {
		fd.Next = append(fd.Next, "add the server's own time (Server-Timing trend or APM figures) to confirm the split")
	}
	return fd
}
