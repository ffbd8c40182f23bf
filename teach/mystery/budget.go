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
const (
	budgetRate     = 600 // requests per second through the mystery
	budgetBurst    = 60
	budgetInFlight = 32 // requests at once
)

func budgetStage() string {
	return fmt.Sprintf("budget:rate=%d/s,burst=%d,inFlight=%d,maxWait=5s", budgetRate, budgetBurst, budgetInFlight)
}

// BudgetText is the budget as the first screen says it.
func BudgetText() string {
	return fmt.Sprintf("%d requests/s and %d at once through this mystery, for everyone aiming at it together (beyond, a request waits its turn, at most 5 s, then 503); it is the exercise's own, not part of the puzzle: reveal reports what it held",
		budgetRate, budgetInFlight)
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
}

func explainBudget(c *Counters) *BudgetLine {
	s := c.stage(whereEdge, "budget")
	if s == nil {
		return nil
	}
	held, avg := num(s, "held"), stat(s, "delay", "avg")
	return &BudgetLine{Stage: budgetStage(), Seen: num(s, "seen"), Held: held, HeldMs: avg,
		PerReq: perRequest(c, held*avg), Refused: rejected(s, 503)}
}

func (b *BudgetLine) text() string {
	if b.Held == 0 && b.Refused == 0 {
		return fmt.Sprintf("the mystery's own load budget (%s; not a device of the puzzle) held none of %g requests", b.Stage, b.Seen)
	}
	return fmt.Sprintf("the mystery's own load budget (%s; not a device of the puzzle) held %g of %g requests for their turn, %.1f ms each on average (%.1f ms of waiting per request over all), and refused %g: discount that from what you measured",
		b.Stage, b.Held, b.Seen, b.HeldMs, b.PerReq, b.Refused)
}
