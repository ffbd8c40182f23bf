package console

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

func sortStrings(s []string) { sort.Strings(s) }

// writeHeader prints k6's start-of-test block.
func writeHeader(w io.Writer, cfg *load.Config, text string, maxVUs int, maxDur time.Duration, jsonPath string) {
	target := cfg.URL
	if len(cfg.Requests) > 0 {
		target = fmt.Sprintf("a mix of %d requests", len(cfg.Requests))
	}
	out := "-"
	if jsonPath != "" {
		out = "json (" + jsonPath + ")"
	}
	scen := cfg.Scenario
	if scen == "" {
		scen = load.DefaultScenario
	}
	fmt.Fprintf(w, "\n     execution: local\n        target: %s\n        output: %s\n\n", target, out)
	fmt.Fprintf(w, "     scenarios: (100.00%%) 1 scenario, %d max VUs, %s max duration (incl. graceful stop):\n", maxVUs, maxDur.Round(time.Millisecond))
	fmt.Fprintf(w, "              * %s: %s\n\n", scen, text)
}

// progressPrinter returns the live line: rewritten in place on a
// terminal, one line per report otherwise.
func progressPrinter(w io.Writer, tty bool) func(load.Progress) {
	var mu sync.Mutex
	return func(p load.Progress) {
		mu.Lock()
		defer mu.Unlock()
		pct := 0.0
		if p.Requests > 0 {
			pct = 100 * float64(p.Failed) / float64(p.Requests)
		}
		line := fmt.Sprintf("running (%04.1fs), %d/%d VUs, %d complete and %d interrupted iterations, %.1f req/s, %d failed (%.2f%%)",
			p.Elapsed.Seconds(), p.VUs, p.MaxVUs, p.Iterations, p.Interrupted, p.ReqRate, p.Failed, pct)
		if p.Dropped > 0 {
			line += fmt.Sprintf(", %d dropped", p.Dropped)
		}
		if tty {
			fmt.Fprint(w, "\r\x1b[K"+line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}

// writeErrorExamples prints one message per error code, so a reader sees
// what "1212" was.
func writeErrorExamples(w io.Writer, r *load.Result) {
	if len(r.ErrorExamples) == 0 {
		return
	}
	codes := make([]int, 0, len(r.ErrorExamples))
	for c := range r.ErrorExamples {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var b strings.Builder
	b.WriteString("    error examples:\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "      %d (%d×): %s\n", c, r.ErrorCodes[c], r.ErrorExamples[c])
	}
	fmt.Fprint(w, b.String()+"\n")
}
