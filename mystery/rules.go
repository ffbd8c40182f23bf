package mystery

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/bench/diagnose"
)

// ruleCard is one of the article's diagnosis rules: what k6 shows, what to
// suspect first, and the finding codes the analyzer gives it. The card
// (`mystery rules`), the catalogue and the reveal all read this one table.
type ruleCard struct {
	n       int
	symptom string
	suspect string
	codes   []string
}

// rules are the article's diagnosis rules ("when k6 shows this, suspect
// that first"), in its order.
var rules = []ruleCard{
	{1, "connecting high", "distance (RTT); a firewall or load balancer limiting new connections; no room to accept",
		[]string{diagnose.CodeConnectSlow, diagnose.CodeAcceptQueue}},
	{2, "tls_handshaking high", "the TLS terminator's capacity; session resumption not working",
		[]string{diagnose.CodeTLSHandshakeSlow, diagnose.CodeHiddenConnectionCost}},
	{3, "blocked high, connecting and tls_handshaking low", "the generator waiting for a connection slot (DNS lands here too)",
		[]string{diagnose.CodeConnectionWait}},
	{4, "sending high", "the uplink, the request body's size, a device inspecting bodies (waiting grows too: not a slow server)",
		[]string{diagnose.CodeUploadLimited}},
	{5, "waiting high and server time high", "the server itself: app, database, threads, a worker pool's queue",
		[]string{diagnose.CodeServerSlow, diagnose.CodeClosedModelBacklog, diagnose.CodeThroughputCeiling}},
	{6, "waiting high and server time low", "RTT, a device inspecting or queueing, a load balancer's queue (rule out a saturated generator first)",
		[]string{diagnose.CodePathLatency}},
	{7, "receiving high while waiting is flat", "downlink bandwidth, response size, the generator's capacity to read",
		[]string{diagnose.CodeDownloadLimited}},
	{8, "429s; the server saw fewer requests than were sent; average below server time", "a device rate-limiting (read the status codes: k6's NDJSON has them, its summary export does not)",
		[]string{diagnose.CodeRateLimited}},
	{9, "(nearly) all fail fast with 403; the server saw none", "the tool is blocked (User-Agent or similar): agree an allow-list with the security team",
		[]string{diagnose.CodeToolBlocked}},
	{10, "all phases grow together whatever the server's time; dropped iterations; generator CPU near its limit", "the generator is saturated",
		[]string{diagnose.CodeGeneratorSaturated}},
	{11, "(the method)", "run the same load straight at the server and through the path; read the difference phase by phase",
		nil},
}

// Rule returns the article's diagnosis rule n in one line, symptom →
// suspect ("" if there is none).
func Rule(n int) string {
	i := slices.IndexFunc(rules, func(r ruleCard) bool { return r.n == n })
	if i < 0 {
		return ""
	}
	return rules[i].symptom + " → " + rules[i].suspect
}

// WriteRules prints the rules as a card: the numbers reveal cites,
// symptom, suspect first, and the codes to answer with.
func WriteRules(w io.Writer) {
	fmt.Fprintln(w, "The article's diagnosis rules: when k6 shows this, suspect that first.")
	fmt.Fprintln(w, "Read the phases beside the server's own time (Server-Timing, /_mb/stats).")
	for _, r := range rules {
		fmt.Fprintf(w, "\n%2d. %s\n    → %s\n", r.n, r.symptom, r.suspect)
		if len(r.codes) > 0 {
			fmt.Fprintf(w, "    answer with: %s\n", strings.Join(r.codes, ", "))
		}
	}
	fmt.Fprintln(w, "\nEvery code: "+strings.Join(diagnose.Codes(), ", "))
}
