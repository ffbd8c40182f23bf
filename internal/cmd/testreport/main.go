// Command testreport reads `go test -json` on stdin and prints what a person
// needs of it: one line per package as `go test` prints it, the whole output
// of every test that failed (or never finished in a package that did), each
// skipped test with its reason, and a closing "N passed, N failed, N skipped".
// `make test` pipes the suite through it so that CI says how many tests
// skipped (those that need k6 or Chromium skip without them) and why.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

type key struct{ pkg, test string }

// report accumulates the stream; its methods print as events arrive.
type report struct {
	out                   io.Writer
	pending               map[key][]string // output of a test still running
	passed, failed, skips int
	skipped               []string
	failedPackages        []string
}

func main() {
	r := &report{out: os.Stdout, pending: map[key][]string{}}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(r.out, sc.Text()) // not JSON: go's own message, shown as it is
			continue
		}
		r.add(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
	}
	r.close()
}

func (r *report) add(e event) {
	k := key{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(r.out, e.Output)
	case e.Action == "output" && e.Test == "":
		if o := strings.TrimSpace(e.Output); o != "PASS" && o != "FAIL" && !strings.HasPrefix(o, "=== ") {
			fmt.Fprint(r.out, e.Output)
		}
	case e.Action == "output":
		r.pending[k] = append(r.pending[k], e.Output)
	case e.Test == "" && e.Action == "fail":
		r.failedPackages = append(r.failedPackages, e.Package)
		r.flushUnfinished(e.Package)
	case e.Test == "":
	case e.Action == "pass":
		r.passed++
		delete(r.pending, k)
	case e.Action == "fail":
		r.failed++
		fmt.Fprint(r.out, strings.Join(r.pending[k], ""))
		delete(r.pending, k)
	case e.Action == "skip":
		r.skips++
		if !strings.Contains(e.Test, "/") {
			r.skipped = append(r.skipped, e.Package+" "+e.Test+": "+reason(r.pending[k]))
		}
		delete(r.pending, k)
	}
}

// flushUnfinished prints the output of a failed package's tests that never
// ended (a timeout's panic names them).
func (r *report) flushUnfinished(pkg string) {
	var names []string
	for k := range r.pending {
		if k.pkg == pkg {
			names = append(names, k.test)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(r.out, "--- unfinished: %s\n%s", n, strings.Join(r.pending[key{pkg, n}], ""))
		delete(r.pending, key{pkg, n})
	}
}

// reason is the last line a skipped test logged, without its file:line.
func reason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, after, ok := strings.Cut(l, ": "); ok && strings.Contains(l[:len(l)-len(after)], ".go:") {
			return after
		}
		return l
	}
	return "no reason given"
}

func (r *report) close() {
	if len(r.skipped) > 0 {
		fmt.Fprintf(r.out, "\nskipped (%d top-level tests):\n", len(r.skipped))
		for _, s := range r.skipped {
			fmt.Fprintln(r.out, "  "+s)
		}
	}
	if len(r.failedPackages) > 0 {
		fmt.Fprintln(r.out, "\nfailed packages: "+strings.Join(r.failedPackages, " "))
	}
	fmt.Fprintf(r.out, "\n%d passed, %d failed, %d skipped\n", r.passed, r.failed, r.skips)
}
