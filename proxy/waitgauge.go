package proxy

import "time"

// waitGauge tells a loop that may block in epoll_wait how to wait next,
// from the share of its time it spent waiting over the last gaugeSpan.
// A busy loop (waiting under half its time) blocks: its waits are short,
// and the kernel wakes the loop's own thread. A loop mostly idle (waiting
// over three quarters of its time, as at light load or between a
// generator's bursts) waits in the runtime's poller, where a long wait
// costs less (see eventSet.wait). Between the two it keeps its way, so
// that a load near one bound does not switch it back and forth (each
// switch puts the set in or out of the poller: four system calls).
type waitGauge struct {
	waited, spent time.Duration // over the current span
	polling       bool
	switches      int // how often it changed its way (tests)
}

const gaugeSpan = 10 * time.Millisecond

// note counts a wait that took waited after worked outside a wait, and
// reports whether the next wait is in the poller.
func (g *waitGauge) note(worked, waited time.Duration) bool {
	g.waited += waited
	g.spent += worked + waited
	if g.spent < gaugeSpan {
		return g.polling
	}
	was := g.polling
	switch {
	case 4*g.waited > 3*g.spent:
		g.polling = true
	case 2*g.waited < g.spent:
		g.polling = false
	}
	if g.polling != was {
		g.switches++
	}
	g.waited, g.spent = 0, 0
	return g.polling
}
