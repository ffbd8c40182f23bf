package console

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// progress prints k6's progress block: "running (01.0s), 2/2 VUs, 350
// complete and 0 interrupted iterations" and a line per scenario, once a
// second, on stdout as k6 does; on a terminal the block is redrawn in place.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	minutes bool // k6 shows minutes when the run may last a minute or more
	lines   int  // lines of the last block (to redraw over it)
	last    load.Progress
}

func newProgress(w io.Writer, tty bool, maxDur time.Duration) *progress {
	return &progress{w: w, tty: tty, minutes: maxDur >= time.Minute}
}

func (p *progress) update(pr load.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = pr
	p.print(pr, false)
}

// done prints the final block: the totals, no VU running, every scenario ✓.
func (p *progress) done(res *load.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.last
	pr.Elapsed, pr.VUs, pr.Iterations, pr.Interrupted = res.Duration(), 0, res.Iterations, res.Interrupted
	for i := range pr.Scenarios {
		pr.Scenarios[i].VUs = 0
	}
	p.print(pr, true)
	fmt.Fprintln(p.w)
}

func (p *progress) print(pr load.Progress, final bool) {
	var b strings.Builder
	if p.tty && p.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA\r\x1b[J", p.lines)
	} else if !p.tty {
		b.WriteString("\n")
	}
	width := len(fmt.Sprint(pr.MaxVUs))
	fmt.Fprintf(&b, "running (%s), %0*d/%0*d VUs, %d complete and %d interrupted iterations\n",
		p.clock(pr.Elapsed), width, pr.VUs, width, pr.MaxVUs, pr.Iterations, pr.Interrupted)
	nameW := 0
	for _, s := range pr.Scenarios {
		nameW = max(nameW, len(s.Name))
	}
	for _, s := range pr.Scenarios {
		b.WriteString(scenarioLine(s, pr.Elapsed, nameW, final))
		b.WriteString("\n")
	}
	p.lines = 1 + len(pr.Scenarios)
	fmt.Fprint(p.w, b.String())
}

// clock is k6's elapsed-time format: 01.0s, or 00m01.0s for long runs.
func (p *progress) clock(d time.Duration) string {
	s := d.Seconds()
	if !p.minutes {
		return fmt.Sprintf("%04.1fs", s)
	}
	m := int(s / 60)
	return fmt.Sprintf("%02dm%04.1fs", m, s-float64(m*60))
}

func scenarioLine(s load.ScenarioProgress, elapsed time.Duration, nameW int, final bool) string {
	own := max(elapsed-s.Start, 0)
	pct := 100
	if s.Planned > 0 && !final {
		pct = min(100, int(100*own/s.Planned))
	}
	mark := " "
	switch {
	case final:
		mark = "✓"
	case s.Planned > 0 && own >= s.Planned:
		mark = "↓" // in its graceful stop
	}
	vus := fmt.Sprintf("%d VUs", s.VUs)
	arrival := s.Executor == load.ConstantArrivalRate || s.Executor == load.RampingArrivalRate
	if arrival {
		vus = fmt.Sprintf("%d/%d VUs", s.VUs, s.MaxVUs)
	}
	at := fmt.Sprintf("%.1fs/%s", own.Seconds(), s.Planned)
	if final {
		at = s.Planned.String()
	}
	line := fmt.Sprintf("%-*s %s [ %3d%% ] %-8s %s", nameW, s.Name, mark, pct, vus, at)
	if arrival {
		line += fmt.Sprintf("  %.2f iters/s", s.Rate)
	}
	return line
}
