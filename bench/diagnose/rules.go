package diagnose

import "github.com/middlebench/middlebench/internal/units"

// Rule judges one window (the whole run or one step of a sweep) and
// returns its finding, with the time it claims (Finding.Explains), or nil.
type Rule interface {
	Check(f *facts) *Finding
}

// check adapts a function to Rule.
type check func(*facts) *Finding

func (c check) Check(f *facts) *Finding { return c(f) }

// sweepRule judges across a sweep's steps; the finding's Steps name the
// steps where it holds.
type sweepRule func(*Observation, *Config) *Finding

// input is what a rule needs from the file.
type input int

const (
	needSteps      input = iota + 1 // a sweep's steps: k6's NDJSON or CSV, or middlebench's document
	needServerTime                  // the server's own time: a Server-Timing trend, --server-stats, an APM's figures
)

// ruleSpec is one row of the rules table: everything about a rule but its
// judgement, which is in its file. Analyze, Config, Codes and the package
// doc know nothing of any rule: they walk this table. A new rule is a file
// (its code, its thresholds' type, its judgement) and a row here.
type ruleSpec struct {
	code string
	// doc is the code's line in the package doc's list (doc.go, checked
	// and rewritten by TestDocListsEveryCode).
	doc string
	// defaults are the rule's thresholds, a struct of its own type with
	// yaml tags, read from the YAML key that is the code with '_' for '-'
	// (nil: none). The rule reads them with thresholdsOf.
	defaults any
	window   Rule // judges one window (nil: a sweep rule only)
	// sweep judges across the steps, before any window; the steps it
	// names get inStep's finding (its claims there) instead of window's.
	sweep  sweepRule
	inStep Rule
	needs  []input
	// explains lists the budget lines the rule may claim (see budget.go);
	// a later rule sees only what is left of them.
	explains []line
	// silencedBy: when one of these was found in the window (or, for a
	// sweep, anywhere in the run), the rule's symptom is theirs.
	silencedBy []string
	// answers: the report's concerns (analyze.go) this finding explains
	// wherever it was found; their notes are not written.
	answers []concern
	// mark: the rule's finding marks the steps it names for later rules
	// (the ceiling tells the backlog rule which steps are past it).
	mark bool
	// timed: the finding names a cause of the average request's time and
	// is dropped when what it explains is not material (Config.Material);
	// rules that read a peak (a handshake few requests paid) or failures
	// are not.
	timed bool
	// wholeRun: judged over the whole run only, not per step. A dial or a
	// handshake costs what it costs at any load; a step's few connection
	// phases are those of its moment (k6 starting its VUs, a burst of new
	// connections), not a cause of the run.
	wholeRun bool
}

// rules is the table, in the order the rules run: a rule that explains a
// phase runs before those that would read the same phase as their own.
var rules = [...]ruleSpec{
	{code: CodeUpstreamFailing, doc: "failures without an HTTP status (reset, EOF, protocol, cut body, timeout) or a proxy's 502/504 for its upstream; not a block",
		defaults: upstreamThresholds{Share: 0.01, Critical: 0.5, Slower: millis(5)},
		window:   check(upstreamFailing), explains: []line{lineOutside, lineServer}, answers: []concern{concernFailures}},
	{code: CodeToolBlocked, doc: "nearly all requests rejected fast with a 4xx, the server saw few (rule 9)",
		defaults: toolBlockedThresholds{Failed: 0.95, ServerShare: 0.05, Fast: millis(10), MinRequests: 10, Blocking: 0.5, FastServer: 0.25},
		window:   check(toolBlocked), silencedBy: []string{CodeUpstreamFailing},
		answers: []concern{concernUnsplitWaiting, concernServerQueue, concernFailures}},
	{code: CodeRateLimited, doc: "429s or fast 503s, or a summary's fast failures (rule 8)",
		defaults: rateLimitedThresholds{Share: 0.01, Fast: 0.25, Skipped: 0.8},
		window:   check(rateLimited), silencedBy: []string{CodeToolBlocked}, answers: []concern{concernFailures}},
	{code: CodeGeneratorSaturated, doc: "phases grow without the server's time; dropped iterations (rule 10)",
		defaults: generatorThresholds{CPU: 80, Dropped: 0.01, Diverge: 2, ServerFlat: 1.3,
			OwnMin: millis(1), OwnShare: 0.2, StallMedian: 0.05, TailMedian: 0.25, Held: 0.9},
		timed: true, window: check(generatorSaturated), sweep: generatorSweep, inStep: check(generatorInStep),
		needs: []input{needServerTime}, explains: []line{lineOutside, lineSending, lineReceiving, lineConnecting, lineConnTails},
		silencedBy: []string{CodeToolBlocked, CodeUpstreamFailing}, answers: []concern{concernUnsplitWaiting}},
	{code: CodeThroughputCeiling, doc: "throughput stops growing while latency climbs across steps (seed 002)",
		defaults: ceilingThresholds{Reach: 0.85, Load: 1.3, Growth: 1.1, Latency: 1.5, Absorb: 0.5, Lag: 0.03, Flat: 1.3},
		sweep:    throughputCeiling, inStep: check(ceilingInStep), window: check(ceilingAtOneRate),
		needs: []input{needSteps}, mark: true,
		explains:   []line{lineOutside, lineServer},
		silencedBy: []string{CodeGeneratorSaturated, CodeToolBlocked, CodeUpstreamFailing},
		answers:    []concern{concernUnsplitWaiting, concernServerQueue}},
	{code: CodeAcceptQueue, doc: "a listen backlog or accept-rate limit with a new connection per request: SYN retries in connecting, the accept wait in waiting",
		defaults: acceptThresholds{Share: 0.3, SynRetry: millis(1000)},
		timed:    true, window: check(acceptQueue), needs: []input{needServerTime},
		explains: []line{lineOutside, lineConnecting, lineBlockedRest}, silencedBy: []string{CodeToolBlocked, CodeUpstreamFailing}},
	{code: CodeUploadLimited, doc: "sending high; waiting inflated by the upload's drain (rule 4)",
		defaults: uploadThresholds{Share: 0.3, Body: 256 * units.KiB},
		timed:    true, window: check(uploadLimited), explains: []line{lineSending, lineOutside},
		silencedBy: []string{CodeToolBlocked}, answers: []concern{concernUnsplitWaiting}},
	{code: CodeDownloadLimited, doc: "receiving high while waiting is flat; a cap's late first byte (rule 7)",
		defaults: downloadThresholds{Share: 0.3, Growth: 3, Flat: 1.5, LinkUse: 0.9},
		timed:    true, window: check(downloadLimited), sweep: downloadSweep, explains: []line{lineReceiving, lineOutside},
		silencedBy: []string{CodeToolBlocked, CodeGeneratorSaturated}, answers: []concern{concernUnsplitWaiting}},
	{code: CodeClosedModelBacklog, doc: "latency ≈ VUs ÷ throughput: a closed model's queue (seed 003)",
		defaults: backlogThresholds{Little: 0.25, Ratio: 3, QueueShare: 0.5, Busy: 0.5, Min: millis(20)},
		timed:    true, window: check(closedModelBacklog), explains: []line{lineServer, lineOutside},
		silencedBy: []string{CodeToolBlocked, CodeGeneratorSaturated, CodeUploadLimited, CodeDownloadLimited},
		answers:    []concern{concernUnsplitWaiting, concernServerQueue}},
	{code: CodeServerSlow, doc: "the server's own time is high and a material share of waiting (rule 5)",
		defaults: serverSlowThresholds{Slow: millis(200), Share: 0.3, Growth: 3},
		timed:    true, window: check(serverSlow), sweep: serverSweep, needs: []input{needServerTime}, explains: []line{lineServer},
		silencedBy: []string{CodeToolBlocked, CodeUploadLimited}, answers: []concern{concernServerQueue}},
	{code: CodePathLatency, doc: "waiting outside the server that no other cause explains (rule 6)",
		defaults: pathLatencyThresholds{Share: 0.3},
		timed:    true, window: check(pathLatency), needs: []input{needServerTime}, explains: []line{lineOutside, lineConnTails},
		// The accept queue claims all the time outside the server where it
		// holds; a step before its first SYN retry is its residual.
		silencedBy: []string{CodeToolBlocked, CodeAcceptQueue}},
	{code: CodeTLSHandshakeSlow, doc: "tls_handshaking high against the TCP connect (rule 2)",
		defaults: tlsThresholds{Slow: millis(50), ConnectRatio: 3},
		window:   check(tlsHandshakeSlow), explains: []line{lineTLS}, wholeRun: true},
	{code: CodeConnectSlow, doc: "connecting high (rule 1)",
		defaults: connectThresholds{Slow: millis(50)},
		window:   check(connectSlow), explains: []line{lineConnecting}, wholeRun: true},
	{code: CodeConnectionWait, doc: "blocked high while connecting and TLS are low (rule 3)",
		defaults: connectionWaitThresholds{Share: 0.5},
		window:   check(connectionWait), explains: []line{lineBlockedRest}, wholeRun: true},
	// A consequence, not a cause: it claims nothing; the accept queue
	// names the same setup time with its own numbers.
	{code: CodeHiddenConnectionCost, doc: "connection setup that http_req_duration leaves out (consequence 1)",
		defaults: hiddenCostThresholds{Share: 0.5},
		window:   check(hiddenConnectionCost), silencedBy: []string{CodeAcceptQueue}, wholeRun: true},
}

func specOf(code string) *ruleSpec {
	for i := range rules {
		if rules[i].code == code {
			return &rules[i]
		}
	}
	return nil
}

// silenced reports whether one of the spec's silencers was found.
func (s *ruleSpec) silenced(found func(string) bool) bool {
	for _, c := range s.silencedBy {
		if found(c) {
			return true
		}
	}
	return false
}

// Unshown returns, for each code whose rule needs what o does not hold,
// why it cannot be named from o and which file would tell.
func Unshown(o *Observation) map[string]string {
	out := map[string]string{}
	for i := range rules {
		s := &rules[i]
		for _, in := range s.needs {
			switch {
			case in == needSteps && len(o.Steps) < 2:
				out[s.code] = "the file has no steps: k6's NDJSON (--out json) or CSV shows a sweep step by step"
			case in == needServerTime && !o.hasServerTime():
				out[s.code] = "the file has no server time: add --server-stats, the APM's figures, or a Server-Timing trend"
			}
		}
	}
	return out
}

func (o *Observation) hasServerTime() bool {
	if o.Phases.Server.Present() || o.Server != nil && o.Server.Time.Present() {
		return true
	}
	for i := range o.Steps {
		if o.Steps[i].Phases.Server.Present() {
			return true
		}
	}
	return false
}
