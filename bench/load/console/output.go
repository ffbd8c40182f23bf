package console

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

func sortStrings(s []string) { sort.Strings(s) }

// writeHeader prints k6's start-of-test block.
func writeHeader(w io.Writer, cfg *load.Config, lines []load.ScenarioText, maxVUs int, maxDur time.Duration, output string) {
	target := cfg.URL
	if len(cfg.Requests) > 0 {
		target = fmt.Sprintf("a mix of %d requests", len(cfg.Requests))
	}
	if len(cfg.Scenarios) > 0 && target == "" {
		target = "each scenario's url"
	}
	fmt.Fprintf(w, "\n     execution: local\n        target: %s\n        output: %s\n\n", target, output)
	fmt.Fprintf(w, "     scenarios: (100.00%%) %s, %d max VUs, %s max duration (incl. graceful stop):\n",
		plural(len(lines), "scenario", "scenarios"), maxVUs, maxDur.Round(time.Millisecond))
	for _, l := range lines {
		fmt.Fprintf(w, "              * %s: %s\n", l.Name, l.Text)
	}
	fmt.Fprintln(w)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
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
