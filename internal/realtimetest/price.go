package realtimetest

import (
	"fmt"
	"sync"
	"time"
)

// price is what a test binary's real-time checks have cost so far: every
// test that measures in rounds logs its own and the binary's running
// total, so the last one's log holds the whole binary's.
type price struct {
	mu               sync.Mutex
	rounds, probes   int
	waited, measured time.Duration
}

func (p *price) add(rounds, probes int, waited, measured time.Duration) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rounds += rounds
	p.probes += probes
	p.waited += waited
	p.measured += measured
	return fmt.Sprintf("%d rounds, %v waiting for quiet moments (%d steal probes of %v), %v measuring",
		p.rounds, p.waited.Round(time.Millisecond), p.probes, stealProbe, p.measured.Round(time.Millisecond))
}

// thisBinary is what the test binary has learnt of its machine and paid:
// the one state shared by its tests (a test binary is one process on one
// machine, and a verdict on the machine holds for all of its tests).
var thisBinary = struct {
	verdict stealVerdict
	spent   price
}{}
