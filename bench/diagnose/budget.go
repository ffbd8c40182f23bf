package diagnose

// The explanation budget: the average request's time, line by line, as
// the file shows it. Each cause that fires claims the part of a line it
// explains, with the numbers that give it (Little's law for a backlog,
// bytes ÷ rate for a cap, the generator's own time); a later rule judges
// only what is left, so path-latency gets the residual no other cause
// explains, and a saturated generator's slow dials are not a slow network.

// line is one line of the budget.
type line int

const (
	lineOutside     line = iota // waiting − server time − server queue
	lineServer                  // server time + server queue
	lineSending                 // http_req_sending
	lineReceiving               // http_req_receiving
	lineConnecting              // http_req_connecting
	lineTLS                     // http_req_tls_handshaking
	lineBlockedRest             // blocked − connecting − TLS: waiting for a slot, DNS
	lineConnTails               // the connection phases of the few requests that paid them (max, not p95)
	nLines
)

var lineNames = [nLines]string{"outside_server", "server", "sending", "receiving", "connecting", "tls_handshaking", "blocked_other", "connection_tails"}

func (l line) String() string { return lineNames[l] }

// Claim is the time one finding explains on one line (ms per request,
// on average).
type Claim struct {
	Line string  `json:"line"`
	Ms   float64 `json:"ms"`
}

type budget struct {
	total, claimed [nLines]float64
}

func newBudget(f *facts) budget {
	var b budget
	p := f.all
	b.total[lineOutside] = max(f.outside, 0)
	b.total[lineServer] = f.srv.Avg + f.queue.Avg
	b.total[lineSending] = f.served.Sending.Avg
	b.total[lineReceiving] = f.served.Receiving.Avg
	b.total[lineConnecting] = p.Connecting.Avg
	b.total[lineTLS] = p.TLS.Avg
	b.total[lineBlockedRest] = max(p.Blocked.Avg-p.Connecting.Avg-p.TLS.Avg, 0)
	b.total[lineConnTails] = p.Blocked.Avg
	return b
}

// left is what no finding has claimed on l.
func (b *budget) left(l line) float64 { return max(b.total[l]-b.claimed[l], 0) }

// unclaimed is the share of l no finding has claimed (1 when l is empty:
// nothing to take from a rule that reads a peak).
func (b *budget) unclaimed(l line) float64 {
	if b.total[l] <= 0 {
		if b.claimed[l] > 0 {
			return 0
		}
		return 1
	}
	return b.left(l) / b.total[l]
}

// take records what fd claims, capped by what is left and by the lines
// its rule may claim, and returns the claims applied.
func (b *budget) take(fd *Finding, allowed []line) {
	var applied []Claim
	for _, c := range fd.claims {
		ok := false
		for _, a := range allowed {
			ok = ok || a == c.line
		}
		if !ok {
			continue
		}
		ms := c.ms
		if c.line != lineConnTails {
			ms = min(ms, b.left(c.line))
		} else {
			b.claimed[c.line] = b.total[c.line] + 1 // the tails are explained whole
			ms = 0
		}
		if ms <= 0 {
			continue
		}
		b.claimed[c.line] += ms
		applied = append(applied, Claim{Line: c.line.String(), Ms: ms})
	}
	fd.Explains = applied
}

// claim is what a rule says it explains, before the budget caps it.
type claim struct {
	line line
	ms   float64
}

// claim adds a claim on l to the finding.
func (fd *Finding) claim(l line, ms float64) *Finding {
	if ms > 0 || l == lineConnTails {
		fd.claims = append(fd.claims, claim{l, ms})
	}
	return fd
}
