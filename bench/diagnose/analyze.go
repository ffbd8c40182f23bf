package diagnose

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// Analyze walks the rules table (rules.go): the sweep rules across the
// steps first, then the window rules on each step of a sweep (steps with
// fewer than MinRequests requests are not judged alone) and on the whole
// run. In each window a rule runs unless a finding that silences it was
// found there, and it judges only the time the findings before it left
// unexplained (budget.go). A finding that holds in some steps lists them.
// Findings are ordered by the time they explain; "healthy" stands alone
// when nothing fires and nothing is left unexplained.
func Analyze(obs *Observation, cfg Config) Report {
	if obs == nil {
		return Report{Findings: []Finding{}, Notes: []string{"nothing to analyse"}}
	}
	// Evidence sanity first: a figure that cannot be these requests' is
	// set aside before any rule reads it.
	var sanity []string
	if note := foreignServerTime(obs, &cfg); note != "" {
		obs = obs.withoutServerTime()
		sanity = append(sanity, note)
	} else if note, per := unservedServerTime(obs, &cfg); note != "" {
		obs = obs.withServerWork(per)
		sanity = append(sanity, note)
	}
	whole := newFacts(&cfg, obs, &obs.Window, "")
	r := newReport(obs, whole)
	r.Notes = append(r.Notes, sanity...)
	merged := map[string]*Finding{}
	sweeps := map[string]*Finding{}
	stepClaims := map[string][]claim{}
	for i := range rules {
		s := &rules[i]
		if s.sweep == nil || s.silenced(func(c string) bool { return sweeps[c] != nil }) {
			continue
		}
		if fd := s.sweep(obs, &cfg); fd != nil {
			sweeps[s.code] = fd
		}
	}
	// Steps first: a cause found in a step silences its symptoms in the
	// whole run, where loads are mixed (Little's law, for one, does not
	// hold over a sweep).
	for i := range obs.Steps {
		st := &obs.Steps[i]
		if st.Requests < cfg.MinRequests {
			continue
		}
		f := newFacts(&cfg, obs, &st.Window, st.Name)
		for code, fd := range sweeps {
			if slices.Contains(fd.Steps, st.Name) {
				f.sweeps[code] = fd
			}
		}
		judge(f, merged)
		for code, fd := range f.fired {
			for _, c := range fd.claims {
				stepClaims[code] = append(stepClaims[code], claim{c.line, c.ms * float64(st.Requests)})
			}
		}
	}
	// What a cause explains in the steps it explains in the whole run,
	// weighted by the steps' requests.
	for code, fd := range merged {
		whole.fired[code] = fd
		if n := float64(whole.w.Requests); n > 0 {
			var per [nLines]float64
			for _, c := range stepClaims[code] {
				per[c.line] += c.ms / n
			}
			// Over the whole run the cause claims at least what it claims
			// of the whole window: a line its steps could not show (the
			// server's time given for the whole run only, as --server-stats
			// is) or time outside every step (a run's drain) is else left
			// to a residual (path-latency, connect-slow).
			if s := specOf(code); s.window != nil {
				if wf := s.window.Check(whole); wf != nil {
					for _, c := range wf.claims {
						if c.line != lineConnTails {
							per[c.line] = max(per[c.line], c.ms)
						}
					}
				}
			}
			seed := &Finding{}
			for l, ms := range per {
				seed.claim(line(l), ms)
			}
			whole.b.take(seed, specOf(code).explains)
		}
	}
	for code, fd := range sweeps {
		whole.sweeps[code] = fd
		// A sweep's cause holds over the whole run too, the drain after
		// the last step included (where a saturated generator's latest
		// requests land): its claims there, beside the steps' seeds.
		if s := specOf(code); s.inStep != nil {
			if c := s.inStep.Check(whole); c != nil {
				whole.b.take(c, s.explains)
			}
		}
	}
	judge(whole, merged)
	for code, fd := range sweeps {
		if merged[code] == nil || specOf(code).inStep != nil {
			merged[code] = fd
		}
	}
	// A cause found anywhere silences what the table says it explains,
	// wherever that was found.
	for code := range merged {
		if specOf(code).silenced(func(c string) bool { return merged[c] != nil }) {
			delete(merged, code)
		}
	}
	for _, fd := range merged {
		if len(fd.Explains) > 0 {
			fd.ExplainsMs = 0
			for _, c := range fd.Explains {
				fd.ExplainsMs += c.Ms
			}
		}
	}
	for code, fd := range merged {
		if specOf(code).timed && !material(fd, whole) {
			delete(merged, code)
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
	r.honesty(obs, whole)
	return r
}

// judge runs the window rules on one window, in the table's order, and
// merges what fires. A code already found (in a step, for the whole run)
// is not judged again: its claims were seeded.
func judge(f *facts, merged map[string]*Finding) {
	for i := range rules {
		s := &rules[i]
		if s.silenced(f.has) || f.has(s.code) || s.wholeRun && f.name != "" {
			continue
		}
		var fd *Finding
		switch sw := f.sweeps[s.code]; {
		case sw != nil && s.inStep != nil:
			fd = s.inStep.Check(f)
		case sw != nil && s.mark:
			continue
		case s.window != nil:
			fd = s.window.Check(f)
		}
		if fd == nil {
			continue
		}
		f.b.take(fd, s.explains)
		f.fired[s.code] = fd
		merge(merged, fd, f.name)
	}
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

// concern is a note the report writes when no finding answers it (the
// rows' answers).
type concern int

const (
	concernUnsplitWaiting concern = iota + 1 // high waiting without the server's time to split it
	concernServerQueue                       // a server queue no finding places
	concernFailures                          // failures of no known kind
)

// concerns notes what no rule explains but a reader should not call
// healthy: high waiting without the server's time to split it, a server
// queue no finding places, failures of no known kind, failed thresholds.
// It reports whether any was found.
func (r *Report) concerns(f *facts, merged map[string]*Finding) bool {
	found := false
	answered := func(c concern) bool {
		for code := range merged {
			if slices.Contains(specOf(code).answers, c) {
				return true
			}
		}
		return false
	}
	wait := f.served.Waiting.Tail()
	if !f.hasServer && wait >= timing.Millis(thresholdsOf[serverSlowThresholds](f.cfg).Slow) && !answered(concernUnsplitWaiting) {
		r.Notes = append(r.Notes, fmt.Sprintf("waiting p95 is %s and the file has no server time: give the server's own time "+
			"(--server-avg/--server-p95 from the APM, --server-stats, or a Server-Timing trend) to tell the server (rule 5) from the path (rule 6)", metrics.FormatMs(wait)))
		found = true
	}
	// A queue in front of the server's workers is a cause only a rule can
	// name (a backlog, a server past capacity). A summary of a sweep mixes
	// its loads, so no rule may hold over the whole run (seed 003's closed
	// sweep: p95 2 s, 733 ms in the queue, Little's law not holding for the
	// mixed VUs): that is not healthy.
	if f.hasServer && f.queue.Avg >= f.floor && !answered(concernServerQueue) {
		r.Notes = append(r.Notes, fmt.Sprintf("the server's queue averages %s (p95 %s) of the %s waiting and no finding explains it: "+
			"requests waited for a worker. A summary mixes the run's loads; analyse k6's NDJSON (--out json) per step, "+
			"with --executor, to see at which load the queue builds and why", metrics.FormatMs(f.queue.Avg), metrics.FormatMs(f.queue.Tail()), metrics.FormatMs(f.served.Waiting.Avg)))
		found = true
	}
	w := f.w
	if w.Requests == 0 && !f.all.Duration.Present() {
		r.Notes = append(r.Notes, "the file holds no requests: nothing to judge")
		found = true
	}
	if fs := share(float64(w.Failed), float64(w.Requests)); fs >= float64(thresholdsOf[rateLimitedThresholds](f.cfg).Share) && !answered(concernFailures) {
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
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
	fd.Summary = fmt.Sprintf("Nothing stands out: duration %s (p95 %s)", metrics.FormatMs(d.Avg), metrics.FormatMs(d.Tail()))
	if f.hasServer {
		fd.Summary += fmt.Sprintf(", of which the server accounts for %s", metrics.FormatMs(f.srv.Avg))
	}
	fd.Summary += "; connection setup, uploads, downloads and failures are small."
	fd.Next = []string{"to see what users on the real path get, run the same scenario through it and compare phase by phase (rule 11)"}
	if !f.hasServer {
		fd.Next = append(fd.Next, "add the server's own time (Server-Timing trend or APM figures) to confirm the split")
	}
	return fd
}

// material: fd explains enough of what a request costs the user (its
// duration and its connecting) to be named: sub-millisecond requests are
// healthy whatever the ratio between their times.
func material(fd *Finding, f *facts) bool {
	c := f.cfg.Material
	cost := f.all.Duration.Avg + f.all.Connecting.Avg
	return fd.ExplainsMs >= timing.Millis(c.Min) && fd.ExplainsMs >= float64(c.Share)*cost
}
