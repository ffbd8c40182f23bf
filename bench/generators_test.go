package bench

import (
	"regexp"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/experiment"
)

// A run with generators: 3 is run by three child processes (this binary,
// through ServeChild), each a third of the arrivals, merged: the counts
// one process would make (50/s for 1.2 s: 60 arrivals), the server
// (in a child of its own) seeing every request, each generator on a CPU.
func TestGeneratorsSplitAndMergeARun(t *testing.T) {
	src := `title: split
isolate: {}
server: {work: 1ms}
runs:
  - name: three generators
    direct: true
    generators: 3
    load: {executor: constant-arrival-rate, rate: 50/s, duration: 1200ms, preAllocatedVUs: 3, maxVUs: 9}
    expect:
      bands:
        - {metric: server requests, equals: "@{http_reqs count}"}
`
	// 60 arrivals start in all; one the generators could not start in time
	// (a stalled machine) is dropped, as k6 drops it, and the server sees
	// each request they sent.
	x := replaySource(t, "split.yaml", src)
	if x.Err != nil {
		t.Fatal(x.Err)
	}
	r := x.Runs[0]
	if started := r.Result.Iterations + r.Result.Dropped; started != 60 || r.Result.Requests != 60-r.Result.Dropped {
		t.Errorf("merged: %d iterations + %d dropped, %d requests; want 60 started, one request each", r.Result.Iterations, r.Result.Dropped, r.Result.Requests)
	}
	if r.Doc.Run.ExecutionSegment != "" || r.Doc.Run.ExecutionSegmentSequence != "" {
		t.Errorf("merged run covers %q of %q, want the whole test", r.Doc.Run.ExecutionSegment, r.Doc.Run.ExecutionSegmentSequence)
	}
	for _, want := range []string{"3 generator processes, segments of 0,1/3,2/3,1", "0:1/3 on CPU", "2/3:1 on CPU", "server and path in a child process"} {
		if canPin && !strings.Contains(r.Pinned, want) {
			t.Errorf("pinned %q lacks %q", r.Pinned, want)
		}
	}
	// Each generator says how its CPU's time went, to tell another
	// process's load from the generator's own.
	if _, ok := sampleShare(0); ok && canPin {
		if n := len(regexp.MustCompile(`on CPU \d+ \(of its \d+\.\d\d s: \d+\.\d\d s its own, \d+\.\d\d s other processes', \d+\.\d\d s stolen\)`).FindAllString(r.Pinned, -1)); n != 3 {
			t.Errorf("pinned %q: %d generators say how their CPU's time went, want 3", r.Pinned, n)
		}
	}
	if !x.Passed() {
		t.Errorf("failures %q", x.Failures())
	}
}

func TestGeneratorsRefused(t *testing.T) {
	base := "title: t\nserver: {work: 1ms}\n"
	for _, c := range []struct{ src, want string }{
		{base + "runs: [{name: a, generators: -1}]\n", "generators -1"},
		{base + "runs: [{name: a, generators: 65}]\n", "generators 65"},
		{base + "runs: [{name: a, generators: 2, load: {executionSegment: \"0:1/2\"}}]\n", "give no executionSegment"},
		{base + "runs: [{name: a, generator: 2}]\n", "generator"},
	} {
		if _, err := experiment.Parse([]byte(c.src), false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want one saying %q", c.src, err, c.want)
		}
	}
}
