package wire

import (
	"fmt"
	"time"
)

// PollStats says whether the line busy-polled its devices while packets
// flowed, and what that took.
type PollStats struct {
	// Unavailable is why it did not (off: Options.BusyPoll; no
	// SCHED_IDLE; one CPU); empty when it did.
	Unavailable string  `json:"unavailable,omitempty"`
	Spinning    bool    `json:"spinning"` // now
	Taken       int64   `json:"taken"`    // packets it admitted before their reader woke
	SpunMs      float64 `json:"spunMs"`   // time it spun, in all, the current spin included (CPU at idle priority)
	Starved     int64   `json:"starved"`  // spins given up because other work kept it from its CPU
}

func (p *poller) stats(why string) PollStats {
	if p == nil {
		return PollStats{Unavailable: why}
	}
	s := PollStats{Taken: p.taken.Load(), Starved: p.starved.Load()}
	spun := time.Duration(p.spunNs.Load())
	if since := p.since.Load(); since != 0 {
		s.Spinning = true
		spun += time.Since(time.Unix(0, since))
	}
	s.SpunMs = float64(spun) / 1e6
	if !p.ran.Load() {
		s.Unavailable = "the thread could not go under SCHED_IDLE"
	}
	return s
}

// String says it in a line: "busy poll spun 1234.5 ms, took 56 packets".
func (s PollStats) String() string {
	if s.Unavailable != "" {
		return "no busy poll: " + s.Unavailable
	}
	str := fmt.Sprintf("busy poll spun %.1f ms at idle priority, took %d packets", s.SpunMs, s.Taken)
	if s.Starved > 0 {
		str += fmt.Sprintf(", gave way %d times to other work", s.Starved)
	}
	return str
}
