package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/experiment"
)

// TestQuickReplay replays real experiments of experiments/ in quick mode,
// as `make run` does, and requires every expectation to hold. They are the
// ones whose bands are wide enough for the race detector's slowdown.
func TestQuickReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("replays experiments for ~10 s")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	// Each experiment is judged on its best of three replays: its bands are
	// real time (a 5 ms band on a duration, under the race detector), and
	// load only makes a replay slower, so one clean replay shows the
	// expectations hold; one that fails in every round fails the test.
	results := map[string]string{}
	for _, file := range []string{"../experiments/e1-tls-handshake.yaml", "../experiments/e5-rate-limit.yaml"} {
		var failed []string
		for round := 1; round <= 3; round++ {
			var out bytes.Buffer
			dir := t.TempDir()
			s, err := RunAll(ctx, Options{Files: []string{file}, Quick: true, Out: &out, Results: filepath.Join(dir, "RESULTS.md")})
			t.Log(out.String())
			if err != nil {
				t.Fatal(err)
			}
			// Not measured (failed while the machine was busy) is not passed.
			if failed = append(s.Failures(), s.NotMeasured()...); len(failed) == 0 {
				results[file] = dir
				break
			}
			t.Logf("%s, round %d: %d expectations failed:\n%s", file, round, len(failed), strings.Join(failed, "\n"))
		}
		if len(failed) > 0 {
			t.Fatalf("%s: expectations failed in all 3 rounds; the last:\n%s", file, strings.Join(failed, "\n"))
		}
	}
	read := func(file, name string) []byte {
		b, err := os.ReadFile(filepath.Join(results[file], name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	e1, e5 := string(read("../experiments/e1-tls-handshake.yaml", "RESULTS.md")), string(read("../experiments/e5-rate-limit.yaml", "RESULTS.md"))
	for _, want := range []string{"## Summary", "(#e1)", "**Phases per run**", "**What each stage did**", "`tls-handshake-slow`", "(results/e1-1-phases.svg)"} {
		if !strings.Contains(e1, want) {
			t.Errorf("e1's RESULTS.md lacks %q", want)
		}
	}
	if !strings.Contains(e5, "| ratelimit |") {
		t.Errorf("e5's RESULTS.md lacks %q", "| ratelimit |")
	}
	svg := read("../experiments/e1-tls-handshake.yaml", filepath.Join("results", "e1-1-phases.svg"))
	if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) && !bytes.Contains(svg[:min(200, len(svg))], []byte("<svg")) {
		t.Errorf("chart: %.80q", svg)
	}
}

// TestBrokenExpectationNamesEverything: a failure says which experiment,
// run, metric, band and value.
func TestBrokenExpectationNamesEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	e, err := experiment.Load("testdata/broken.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	x := (&Runner{}).Run(ctx, e)
	if x.Err != nil {
		t.Fatal(x.Err)
	}
	// On a busy machine either may be not measured instead: it names the
	// same things.
	f := append(x.Failures(), x.NotMeasured()...)
	if len(f) != 2 {
		t.Fatalf("failures %q, want the missing finding and the waiting band", f)
	}
	for _, wants := range [][]string{
		{"broken", `run "twenty ms"`, "finding server-slow expected, not found (found: "},
		{"broken", `run "twenty ms"`, "http_req_waiting avg = 2", "want −∞ .. 20ms - 19ms [−∞ .. 1]"},
	} {
		if !slices.ContainsFunc(f, func(msg string) bool {
			return !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(msg, w) })
		}) {
			t.Errorf("no failure in %q says all of %q", f, wants)
		}
	}
}

// TestFailuresFailTheRun: a run whose requests fail does not pass its
// timing bands unnoticed.
func TestFailuresFailTheRun(t *testing.T) {
	src := `title: failing
server: {status: 503}
runs:
  - name: five hundreds
    direct: true
    load: {vus: 1, iterations: 3}
    expect:
      bands:
        - {metric: http_req_duration avg, max: 1s}
`
	e, err := experiment.Parse([]byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	e.ID = "failing"
	x := (&Runner{}).Run(t.Context(), e)
	f := x.Failures()
	if len(f) != 1 || !strings.Contains(f[0], "3 of 3 requests failed (3 × 503)") {
		t.Fatalf("failures %q, want the three 503s named", f)
	}
}
