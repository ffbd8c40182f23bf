package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// progressLine shows a run while it lasts: rewritten in place on a
// terminal, or one plain line every 5 s elsewhere (a CI log).
type progressLine struct {
	w      io.Writer
	live   bool
	label  string
	last   time.Time
	latest load.Progress
}

func newProgressLine(w io.Writer, live bool, id, run string) *progressLine {
	p := &progressLine{w: w, live: live, label: id + " › " + run, last: time.Now()}
	if !live {
		fmt.Fprintf(w, "  %s …\n", p.label)
	}
	return p
}

func (p *progressLine) text(g load.Progress) string {
	planned := ""
	if g.Planned > 0 {
		planned = "/" + g.Planned.Round(time.Second).String()
	}
	s := fmt.Sprintf("  %s  %s%s  %d VUs  %.0f req/s  %d reqs  %d failed", p.label,
		g.Elapsed.Round(100*time.Millisecond), planned, g.VUs, g.ReqRate, g.Requests, g.Failed)
	if g.Dropped > 0 {
		s += fmt.Sprintf("  %d dropped", g.Dropped)
	}
	return s
}

func (p *progressLine) update(g load.Progress) {
	p.latest = g
	switch {
	case p.live:
		fmt.Fprintf(p.w, "\r\033[K%s", p.text(g))
	case time.Since(p.last) >= 5*time.Second:
		p.last = time.Now()
		fmt.Fprintln(p.w, p.text(g))
	}
}

func (p *progressLine) done() {
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
