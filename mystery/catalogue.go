package mystery

import (
	"math/rand/v2"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/fakeserver"
)

// Where a cause lives: the net box (bytes: accept, link, bandwidth), the
// edge box (TLS termination and the HTTP stages) or the server itself.
const (
	whereNet    = "net"
	whereEdge   = "edge"
	whereServer = "server"
)

// cause is one row of the catalogue: a fault a path or a server can have,
// the finding codes that name it, the article's rule that finds it, how to
// draw it (real or as a decoy) and how to read what it did off the
// counters.
type cause struct {
	id    string
	where string
	kind  string // the stage kind; "" for server causes
	rule  int    // the article's diagnosis rule (1–11)
	codes []string
	// real draws the cause with an effect a student can see; decoy draws
	// the same device tuned so that it does nothing worth naming (nil: the
	// cause has no decoy form).
	real, decoy func(r *rand.Rand) drawn
	// explain reads what the cause did off the counters.
	explain func(c *Counters, d drawn) Effect
	// excludes lists causes that cannot share a mystery with this one
	// (a tool blocked outright hides every other cause).
	excludes []string
}

// drawn is one cause as drawn: a stage in the proxy's shorthand, or a
// change to the server's configuration, and the words the key uses.
type drawn struct {
	stage  string
	server func(*fakeserver.Config)
	what   string
	// ms is the drawn size of the effect (a delay, a work time; 0 when it
	// is a count or a rate) and rate a drawn rate per second.
	ms, rate float64
}

// pick returns one element of xs, drawn with r (a fixed list, so that the
// same seed gives the same value everywhere).
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// catalogue is every cause a mystery can draw, in a fixed order (the draw
// indexes it, so appending keeps old seeds' mysteries only when appended
// at the end).
var catalogue = []cause{
	{id: "tls-delay", where: whereEdge, kind: "tls", rule: 2,
		codes: []string{diagnose.CodeTLSHandshakeSlow, diagnose.CodeHiddenConnectionCost},
		real:  tlsDelay(150, 250, 400), decoy: tlsDelay(1), explain: explainTLS},
	{id: "accept-limit", where: whereNet, kind: "accept", rule: 1,
		codes: []string{diagnose.CodeConnectSlow, diagnose.CodeConnectionWait, diagnose.CodeHiddenConnectionCost, diagnose.CodeTLSHandshakeSlow},
		real:  acceptLimit(1, 2), decoy: acceptLimit(10000), explain: explainAccept},
	{id: "link-latency", where: whereNet, kind: "link", rule: 6,
		codes: []string{diagnose.CodePathLatency},
		real:  linkLatency(30, 45, 60), decoy: linkLatency(0.1), explain: explainLink},
	{id: "bandwidth", where: whereNet, kind: "bandwidth", rule: 7,
		// The cap holds a response's first bytes too, so k6 shows much of it
		// in waiting: path-latency names it as well (rule 6).
		codes: []string{diagnose.CodeDownloadLimited, diagnose.CodeThroughputCeiling, diagnose.CodePathLatency},
		real:  bandwidthCap(64, 128), decoy: bandwidthCap(1 << 20), explain: explainBandwidth,
		// A limiter passing 2–3 requests/s offers the cap less than it allows.
		excludes: []string{"ratelimit"}},
	{id: "waf", where: whereEdge, kind: "waf", rule: 6,
		codes: []string{diagnose.CodePathLatency},
		real:  wafDelay(150, 250, 350), decoy: wafDelay(0.2), explain: explainWAF},
	{id: "ratelimit", where: whereEdge, kind: "ratelimit", rule: 8,
		codes: []string{diagnose.CodeRateLimited},
		real:  rateLimit(2, 3), decoy: rateLimit(100000), explain: explainRateLimit},
	{id: "uablock", where: whereEdge, kind: "uablock", rule: 9,
		codes: []string{diagnose.CodeToolBlocked},
		real: func(*rand.Rand) drawn {
			return drawn{stage: "uablock:status=403", what: "load tools' User-Agents answered 403"}
		},
		explain: explainUABlock, excludes: []string{"*"}},
	{id: "fault-delay", where: whereEdge, kind: "fault", rule: 6,
		codes: []string{diagnose.CodePathLatency},
		real:  faultDelay(50, 70), decoy: nil, explain: explainFault},
	{id: "slow-server", where: whereServer, rule: 5,
		codes: []string{diagnose.CodeServerSlow},
		real:  serverWork(250, 350, 450), decoy: nil, explain: explainServerWork},
	{id: "worker-backlog", where: whereServer, rule: 5,
		codes: []string{diagnose.CodeClosedModelBacklog, diagnose.CodeServerSlow, diagnose.CodeThroughputCeiling},
		real:  workerPool(1), decoy: workerPool(1000), explain: explainBacklog,
		// A queue needs arrivals: a cause that slows each VU's loop or
		// lets few requests through leaves the workers idle.
		excludes: []string{"slow-server", "cpu-bound", "waf", "fault-delay", "link-latency", "bandwidth", "ratelimit"}},
	{id: "cpu-bound", where: whereServer, rule: 5,
		codes: []string{diagnose.CodeServerSlow, diagnose.CodeThroughputCeiling},
		real:  serverCPU(60, 80), decoy: nil, explain: explainServerWork,
		excludes: []string{"slow-server", "worker-backlog"}},
}

// causeByID finds a catalogue row.
func causeByID(id string) (*cause, bool) {
	for i := range catalogue {
		if catalogue[i].id == id {
			return &catalogue[i], true
		}
	}
	return nil, false
}

// CatalogueIDs lists the causes a mystery can draw, in the catalogue's order.
func CatalogueIDs() []string {
	ids := make([]string, len(catalogue))
	for i, c := range catalogue {
		ids[i] = c.id
	}
	return ids
}
