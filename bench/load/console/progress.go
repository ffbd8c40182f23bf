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
	plans   map[string]scenarioPlan
	// finished holds the line of each scenario that has ended, as it was
	// then: k6 freezes an executor's line when its run returns.
	finished map[string]scenarioLine
}

// scenarioLine is one scenario's line before it is laid out with the others.
type scenarioLine struct {
	name, mark string
	frac       float64
	right      []string
}

func newProgress(w io.Writer, tty bool, maxDur time.Duration, cfg *load.Config) *progress {
	return &progress{w: w, tty: tty, minutes: maxDur >= time.Minute, plans: plansOf(cfg), finished: map[string]scenarioLine{}}
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
	lines := make([]scenarioLine, len(pr.Scenarios))
	for i, s := range pr.Scenarios {
		allocated := max(p.plans[s.Name].preAlloc, s.VUs)
		if len(pr.Scenarios) == 1 {
			allocated = pr.MaxVUs // the run's allocated VUs are this scenario's
		}
		lines[i] = p.scenario(s, pr.Elapsed, allocated, final)
	}
	for _, l := range layout(lines) {
		b.WriteString(l)
		b.WriteString("\n")
	}
	p.lines = 1 + len(pr.Scenarios)
	fmt.Fprint(p.w, b.String())
}

// scenario is one scenario's line at elapsed: k6's mark (↓ in its
// graceful stop, ✓ done), the fraction done and its executor's columns.
func (p *progress) scenario(s load.ScenarioProgress, elapsed time.Duration, allocated int, final bool) scenarioLine {
	if l, ok := p.finished[s.Name]; ok {
		return l
	}
	own := elapsed - s.Start
	if own < 0 {
		return scenarioLine{name: s.Name, mark: " "} // not started: an empty bar, as k6's before its executor runs
	}
	plan := p.plans[s.Name]
	cols, ok := executorColumns[s.Executor]
	if !ok {
		cols = func(s load.ScenarioProgress, _ scenarioPlan, own time.Duration, _ int) (float64, []string) {
			return timeDone(own, s.Planned, fmt.Sprintf("%d VUs", s.VUs))
		}
	}
	frac, right := cols(s, plan, own, allocated)
	l := scenarioLine{name: s.Name, mark: " ", frac: frac, right: right}
	iterationBound := s.Executor == load.SharedIterations || s.Executor == load.PerVUIterations
	switch {
	case final:
		l.mark = "✓"
	case iterationBound && frac >= 1, own >= s.Planned && s.VUs == 0:
		l.mark = "✓"
		p.finished[s.Name] = l
	case own >= s.Planned:
		l.mark = "↓" // in its graceful stop
	}
	return l
}

// layout lays the lines out as k6 does: names padded to the longest, the
// bar as a percentage, and each column but a line's last padded to the
// widest of the first two columns across the lines.
func layout(lines []scenarioLine) []string {
	nameW := 0
	var colW [2]int
	for _, l := range lines {
		nameW = max(nameW, len(l.name))
		for i := range min(len(l.right)-1, len(colW)) {
			colW[i] = max(colW[i], len(l.right[i]))
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		fmt.Fprintf(&b, "%-*s %s [ %3.f%% ]", nameW, l.name, l.mark, 100*l.frac)
		for j, c := range l.right {
			pad := 0
			if j < len(colW) {
				pad = colW[j]
			}
			fmt.Fprintf(&b, " %-*s", pad+1, c)
		}
		out[i] = b.String()
	}
	return out
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
