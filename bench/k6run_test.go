package bench

import (
	"math"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/record"
)

// The k6 table's verdict counts only the checks made; a skipped one is
// listed with its reason, neither passed nor failed.
func TestK6VerdictShowsSkippedApart(t *testing.T) {
	kr := &record.K6Run{RunResult: &record.RunResult{Checks: []record.Check{
		{What: "finding download-limited", OK: true, Value: math.NaN()},
		{What: "finding throughput-ceiling", Skipped: "not shown by k6's summary export (the file has no steps)"},
		{What: "stream: finding throughput-ceiling", OK: true},
		{What: "stream: step last tps", Msg: "step last tps = 42.51, want [32 .. 40.80]"},
	}}}
	got := k6Verdict(kr)
	want := "❌ 2/3: step last tps = 42.51, want [32 .. 40.80]; ⏭ 1 skipped: finding throughput-ceiling: not shown by k6's summary export (the file has no steps)"
	if got != want {
		t.Errorf("verdict\n got %s\nwant %s", got, want)
	}
	x := &record.ExperimentResult{Exp: &experiment.Experiment{ID: "e4"}, K6: []*record.K6Run{kr}}
	kr.Spec = &experiment.RunSpec{Name: "sweep"}
	if f := x.Failures(); len(f) != 1 || !strings.Contains(f[0], "step last tps") {
		t.Errorf("failures %q, want only the failed band", f)
	}
}
