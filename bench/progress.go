package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/load/console"
)

// progressLine shows a run while it lasts: rewritten in place on a
// terminal, or one plain line every 5 s elsewhere (a CI log).
type progressLine struct {
	w      io.Writer
	live   bool
	label  string
	cfg    *load.Config
	last   time.Time
	latest load.Progress
}

func newProgressLine(w io.Writer, live bool, id, run string, cfg *load.Config) *progressLine {
	p := &progressLine{w: w, live: live, label: id + " › " + run, cfg: cfg, last: time.Now()}
	if !live {
		fmt.Fprintf(w, "  %s …\n", p.label)
	}
	return p
}

// text is the run's label, its executor's columns as k6 prints them
// (console.Columns: "2/4 VUs  1.0s/3.0s", "086/120 iters, 60 per VU",
// "02/05 VUs  1.0s/3s  50.00 iters/s"), then the requests.
func (p *progressLine) text(g load.Progress) string {
	var cols []string
	if p.cfg != nil {
		for _, c := range console.Columns(p.cfg, g) {
			cols = append(cols, c...)
		}
	}
	if len(cols) == 0 {
		planned := ""
		if g.Planned > 0 {
			planned = "/" + g.Planned.Round(time.Second).String()
		}
		cols = []string{g.Elapsed.Round(100*time.Millisecond).String() + planned, fmt.Sprintf("%d VUs", g.VUs)}
	}
	s := fmt.Sprintf("  %s  %s  %.0f req/s  %d reqs  %d failed", p.label, strings.Join(cols, "  "), g.ReqRate, g.Requests, g.Failed)
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
