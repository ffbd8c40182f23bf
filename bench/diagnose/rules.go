package diagnose

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

// ruleSpec is one row of the rules table: what the rule reads, what it
// explains, and which findings silence it. Analyze knows nothing of any
// rule: it walks this table.
type ruleSpec struct {
	code   string
	window Rule // judges one window (nil: a sweep rule only)
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
	{code: CodeUpstreamFailing, window: check(upstreamFailing), explains: []line{lineOutside, lineServer}},
	{code: CodeToolBlocked, window: check(toolBlocked), silencedBy: []string{CodeUpstreamFailing}},
	{code: CodeRateLimited, window: check(rateLimited), silencedBy: []string{CodeToolBlocked}},
	{code: CodeGeneratorSaturated, timed: true, window: check(generatorSaturated), sweep: generatorSweep, inStep: check(generatorInStep),
		needs: []input{needServerTime}, explains: []line{lineOutside, lineSending, lineReceiving, lineConnecting, lineConnTails},
		silencedBy: []string{CodeToolBlocked, CodeUpstreamFailing}},
	{code: CodeThroughputCeiling, sweep: throughputCeiling, inStep: check(ceilingInStep), window: check(ceilingAtOneRate),
		needs: []input{needSteps}, mark: true,
		explains:   []line{lineOutside, lineServer},
		silencedBy: []string{CodeGeneratorSaturated, CodeToolBlocked, CodeUpstreamFailing}},
	{code: CodeAcceptQueue, timed: true, window: check(acceptQueue), needs: []input{needServerTime},
		explains: []line{lineOutside, lineConnecting, lineBlockedRest}, silencedBy: []string{CodeToolBlocked, CodeUpstreamFailing}},
	{code: CodeUploadLimited, timed: true, window: check(uploadLimited), explains: []line{lineSending, lineOutside},
		silencedBy: []string{CodeToolBlocked}},
	{code: CodeDownloadLimited, timed: true, window: check(downloadLimited), sweep: downloadSweep, explains: []line{lineReceiving, lineOutside},
		silencedBy: []string{CodeToolBlocked, CodeGeneratorSaturated}},
	{code: CodeClosedModelBacklog, timed: true, window: check(closedModelBacklog), explains: []line{lineServer, lineOutside},
		silencedBy: []string{CodeToolBlocked, CodeGeneratorSaturated, CodeUploadLimited, CodeDownloadLimited}},
	{code: CodeServerSlow, timed: true, window: check(serverSlow), sweep: serverSweep, needs: []input{needServerTime}, explains: []line{lineServer},
		silencedBy: []string{CodeToolBlocked, CodeUploadLimited}},
	{code: CodePathLatency, timed: true, window: check(pathLatency), needs: []input{needServerTime}, explains: []line{lineOutside, lineConnTails},
		// The accept queue claims all the time outside the server where it
		// holds; a step before its first SYN retry is its residual.
		silencedBy: []string{CodeToolBlocked, CodeAcceptQueue}},
	{code: CodeTLSHandshakeSlow, window: check(tlsHandshakeSlow), explains: []line{lineTLS}, wholeRun: true},
	{code: CodeConnectSlow, window: check(connectSlow), explains: []line{lineConnecting}, wholeRun: true},
	{code: CodeConnectionWait, window: check(connectionWait), explains: []line{lineBlockedRest}, wholeRun: true},
	// A consequence, not a cause: it claims nothing; the accept queue
	// names the same setup time with its own numbers.
	{code: CodeHiddenConnectionCost, window: check(hiddenConnectionCost), silencedBy: []string{CodeAcceptQueue}, wholeRun: true},
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
