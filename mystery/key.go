package mystery

import (
	"fmt"
)

// actedMs is the least a cause must add, per connection, request or chunk
// it touched, to be worth naming: below it the device is a decoy whatever
// its kind. Every real cause adds 30 ms or more; a decoy asks for 1 ms or
// less, and what it measures beyond that is the host's scheduling (a busy
// laptop wakes a 0.2 ms sleep some ms late).
const actedMs = 25

// PhaseMs is time a cause explains in one of k6's phases, in ms per
// request on average over all the requests the path saw.
type PhaseMs struct {
	Phase string  `json:"phase"`
	Ms    float64 `json:"ms"`
}

// Effect is what a cause did, read off the counters.
type Effect struct {
	Acted bool `json:"acted"`
	// PerEvent is the time it added to each connection, request or chunk
	// it touched (ms); Events how many it touched.
	PerEvent float64   `json:"perEventMs,omitempty"`
	Events   float64   `json:"events,omitempty"`
	Failed   float64   `json:"failed,omitempty"` // requests it answered with an error status
	Phases   []PhaseMs `json:"phases,omitempty"`
	Facts    []string  `json:"facts"`
}

// KeyLine is one part of the answer key.
type KeyLine struct {
	Part
	Effect
}

// Key is a mystery's answer key: each drawn part and what the counters say
// it did.
type Key struct {
	ID          string    `json:"id"`
	Seed        uint64    `json:"seed"`
	Level       Level     `json:"level"`
	Requests    float64   `json:"requests"`
	Connections float64   `json:"connections"`
	Lines       []KeyLine `json:"lines"`
	// Budget is what the mystery's own load budget did: never a line of
	// the puzzle.
	Budget *BudgetLine `json:"budget,omitempty"`
	Notes  []string    `json:"notes,omitempty"`
}

// KeyFrom reads the answer key off the counters (nil: the mystery never
// ran, the key says only what was drawn).
func (m *Mystery) KeyFrom(c *Counters) Key {
	k := Key{ID: m.ID, Seed: m.Seed, Level: m.Level}
	if c == nil {
		k.Notes = append(k.Notes, "no counters: the mystery has not served a request yet; only what was drawn is known")
		for _, p := range m.Parts {
			k.Lines = append(k.Lines, KeyLine{Part: p})
		}
		return k
	}
	k.Requests, k.Connections = c.Requests(), c.Connections()
	k.Budget = explainBudget(c)
	if open := c.OpenConnections(); open > 0 {
		k.Notes = append(k.Notes, fmt.Sprintf("%g connections still open: a byte cap counts a connection's waits when it closes (stop the load first)", open))
	}
	for _, p := range m.Parts {
		cs, _ := causeByID(p.Cause)
		k.Lines = append(k.Lines, KeyLine{Part: p, Effect: cs.explain(c, p.d)})
	}
	return k
}

// delayed says whether a delaying device acted: it was asked for a delay
// worth naming and applied it. What it applied beyond what it was asked is
// the host's (a busy machine wakes a sleeper late; a TLS terminator counts
// from accept(2) to the end of its wait, so a late ClientHello adds too):
// a 1 ms decoy measured at 40 ms under -race is still a 1 ms decoy.
func delayed(n, avg float64, d drawn) bool { return n > 0 && avg >= actedMs && d.ms >= actedMs }

// perRequest spreads total ms over the requests the path saw.
func perRequest(c *Counters, total float64) float64 {
	if n := c.Requests(); n > 0 {
		return total / n
	}
	return 0
}

func explainTLS(c *Counters, d drawn) Effect {
	s := c.stage(whereEdge, "tls")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	e := Effect{PerEvent: avg, Events: n, Acted: delayed(n, avg, d),
		Phases: []PhaseMs{{"tls_handshaking", perRequest(c, avg*n)}},
		Facts: []string{fmt.Sprintf("%g handshakes (%g resumed); %g delayed, by %.1f ms on average: %.0f ms in all, paid by the first request on each new connection",
			num(s, "handshakes"), num(s, "resumed"), n, avg, avg*n)}}
	return e
}

func explainAccept(c *Counters, _ drawn) Effect {
	s := c.stage(whereNet, "accept")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	return Effect{PerEvent: avg, Events: n, Acted: n > 0 && avg >= actedMs,
		Phases: []PhaseMs{{"tls_handshaking", perRequest(c, avg*n)}},
		Facts: []string{fmt.Sprintf("%g of %g connections held before accept(2), %.1f ms on average (%.0f ms in all); the kernel had answered the SYN, so connecting stays short and the ClientHello waits",
			n, num(s, "seen"), avg, avg*n)}}
}

func explainLink(c *Counters, d drawn) Effect {
	s := c.stage(whereNet, "link")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	req, conns := c.Requests(), c.Connections()
	e := Effect{PerEvent: avg, Events: n, Acted: delayed(n, avg, d),
		Facts: []string{fmt.Sprintf("%g chunks delayed %.1f ms on average, one way: each request and its response pay a round trip (%.1f ms), each TLS handshake one more", n, avg, 2*avg)}}
	if req > 0 {
		e.Phases = []PhaseMs{{"waiting", 2 * avg}, {"tls_handshaking", 2 * avg * conns / req}}
	}
	return e
}

func explainBandwidth(c *Counters, d drawn) Effect {
	s := c.stage(whereNet, "bandwidth")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	down := num(s, "bytesDown")
	total := avg * n
	e := Effect{PerEvent: perRequest(c, total), Events: n, Acted: perRequest(c, total) >= actedMs,
		Phases: []PhaseMs{{"waiting+receiving", perRequest(c, total)}},
		Facts:  []string{fmt.Sprintf("%g bytes down; at the cap that is %.2f s of transfer; %g closed connections waited %.0f ms in all for the cap (a response's first bytes wait too, so waiting grows with receiving)", down, down/d.rate, n, total)}}
	return e
}

func explainWAF(c *Counters, d drawn) Effect {
	s := c.stage(whereEdge, "waf")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	return Effect{PerEvent: avg, Events: n, Acted: delayed(n, avg, d),
		Phases: []PhaseMs{{"waiting", perRequest(c, avg*n)}},
		Facts:  []string{fmt.Sprintf("%g requests inspected, %.2f ms each on average; the server's own time does not see it", n, avg)}}
}

func explainRateLimit(c *Counters, _ drawn) Effect {
	s := c.stage(whereEdge, "ratelimit")
	r := rejected(s, 429)
	return Effect{Events: r, Failed: r, Acted: r > 0,
		Facts: []string{fmt.Sprintf("%g of %g requests answered 429 at once (they never reached the server, and their fast answers lower the average); %g passed", r, num(s, "seen"), num(s, "passed"))}}
}

func explainUABlock(c *Counters, _ drawn) Effect {
	s := c.stage(whereEdge, "uablock")
	r := rejected(s, 403)
	return Effect{Events: r, Failed: r, Acted: r > 0,
		Facts: []string{fmt.Sprintf("%g of %g requests answered 403 for their User-Agent; the server saw %d requests", r, num(s, "seen"), c.Server.Requests)}}
}

func explainFault(c *Counters, d drawn) Effect {
	s := c.stage(whereEdge, "fault")
	avg, n := stat(s, "delay", "avg"), stat(s, "delay", "count")
	return Effect{PerEvent: avg, Events: n, Acted: delayed(n, avg, d),
		Phases: []PhaseMs{{"waiting", perRequest(c, avg*n)}},
		Facts:  []string{fmt.Sprintf("%g of %g requests held, %.1f ms each: the tail (p95) moves more than the median", n, num(s, "seen"), avg)}}
}

func explainServerWork(c *Counters, _ drawn) Effect {
	avg := c.Server.ServerTime["avg"]
	extra := avg - baseWorkMs
	return Effect{PerEvent: extra, Events: float64(c.Server.Requests), Acted: c.Server.Requests > 0 && extra >= actedMs,
		Phases: []PhaseMs{{"waiting", max(extra, 0)}},
		Facts:  []string{fmt.Sprintf("the server reports %.1f ms of its own time per request (%d requests), %.1f ms above the %d ms every mystery's server works", avg, c.Server.Requests, extra, baseWorkMs)}}
}

func explainBacklog(c *Counters, _ drawn) Effect {
	q := c.Server.QueueTime["avg"]
	return Effect{PerEvent: q, Events: float64(c.Server.Requests), Acted: c.Server.Requests > 0 && q >= actedMs,
		Phases: []PhaseMs{{"waiting", q}},
		Facts:  []string{fmt.Sprintf("requests waited %.1f ms on average for one of %d workers (Server-Timing queue;dur), before %.1f ms of work", q, c.Server.Workers, c.Server.ServerTime["avg"])}}
}
