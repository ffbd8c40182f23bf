package mystery

import (
	"fmt"
)

// Every mystery's edge box paces the requests through it (proxy's budget
// stage) so that a mystery that rejects every request at once — a blocked
// tool, a rate limiter — costs its machine a few hundred requests a second
// instead of tens of thousands: thirty of them on one shared host, or one
// on a student's laptop, stay affordable. The cap sits well above what the
// exercise's 5 VUs send to the fastest mystery (a 20 ms server: about 250
// requests/s), so it holds nothing there; where it holds, the reveal
// says so apart from the puzzle's devices.
//
// New connections are paced too, in the net box, before any handshake:
// with --no-connection-reuse each request pays a TLS handshake, which costs
// more than the request. The exercise's 5 VUs open at most ~220 a second
// against the fastest mystery, so the cap holds none of theirs either.
const (
	budgetRate      = 600 // requests per second through the mystery
	budgetBurst     = 60
	budgetInFlight  = 32  // requests at once
	budgetConnRate  = 300 // new connections per second
	budgetConnBurst = 30
)

func budgetStage() string {
	return fmt.Sprintf("budget:rate=%d/s,burst=%d,inFlight=%d,maxWait=5s", budgetRate, budgetBurst, budgetInFlight)
}

func budgetConnStage() string {
	return fmt.Sprintf("budget:connRate=%d/s,connBurst=%d", budgetConnRate, budgetConnBurst)
}

// BudgetText is the budget as the first screen says it.
func BudgetText() string {
	return fmt.Sprintf("%d requests/s, %d at once and %d new connections/s through this mystery, for everyone aiming at it together (beyond, a request or a connection waits its turn; a request at most 5 s, then 503); it is the exercise's own, not part of the puzzle: reveal reports what it held",
		budgetRate, budgetInFlight, budgetConnRate)
}

// BudgetLine is what the mystery's own load budget did, apart from the
// puzzle's devices (naming it is neither right nor wrong).
type BudgetLine struct {
	Stage   string  `json:"stage"`
	Seen    float64 `json:"seen"`
	Held    float64 `json:"held"`
	HeldMs  float64 `json:"heldAvgMs"` // average wait of a held request
	PerReq  float64 `json:"perRequestMs"`
	Refused float64 `json:"refused"` // answered 503 past maxWait
	// The connection budget (net box): accepts held and their wait.
	ConnStage  string  `json:"connStage"`
	ConnSeen   float64 `json:"connSeen"`
	ConnHeld   float64 `json:"connHeld"`
	ConnHeldMs float64 `json:"connHeldAvgMs"`
}

func explainBudget(c *Counters) *BudgetLine {
	s, n := c.stage(whereEdge, "budget"), c.stage(whereNet, "budget")
	if s == nil && n == nil {
		return nil
	}
	held, avg := num(s, "held"), stat(s, "delay", "avg")
	return &BudgetLine{Stage: budgetStage(), Seen: num(s, "seen"), Held: held, HeldMs: avg,
		PerReq: perRequest(c, held*avg), Refused: rejected(s, 503),
		ConnStage: budgetConnStage(), ConnSeen: num(n, "seen"), ConnHeld: num(n, "held"), ConnHeldMs: stat(n, "delay", "avg")}
}

func (b *BudgetLine) text() string {
	t := fmt.Sprintf("the mystery's own load budget (%s and %s; not a device of the puzzle) ", b.Stage, b.ConnStage)
	if b.Held == 0 && b.Refused == 0 && b.ConnHeld == 0 {
		return t + fmt.Sprintf("held none of %g requests and %g connections", b.Seen, b.ConnSeen)
	}
	return t + fmt.Sprintf("held %g of %g requests for their turn, %.1f ms each on average (%.1f ms of waiting per request over all), refused %g, and held %g of %g new connections, %.1f ms each: discount that from what you measured",
		b.Held, b.Seen, b.HeldMs, b.PerReq, b.Refused, b.ConnHeld, b.ConnSeen, b.ConnHeldMs)
}
