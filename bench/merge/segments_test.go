package merge

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// started is what a run started: complete, interrupted and dropped
// iterations (an arrival with no idle VU is dropped, still one of the
// schedule's).
func started(r *load.Result) int64 { return r.Iterations + r.Interrupted + r.Dropped }

// The four segments of one sequence, run at once in this process against
// one server, start together exactly the iterations one process starts
// for the same config: 100/s for 2 s, arrivals at 0, 10 ms, … 1990 ms.
func TestSegmentsMergeToOneProcess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	const want = 200 // 100/s × 2 s, the first at 0 and none at 2 s
	base := load.Config{URL: srv.URL, Executor: load.ConstantArrivalRate, Rate: units.Rate{N: 100, Per: time.Second},
		Duration: units.Duration(2 * time.Second), PreAllocatedVUs: 8, MaxVUs: 16}
	ctx := context.Background()

	whole, err := load.Run(ctx, &base, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := started(whole); got != want {
		t.Fatalf("one process started %d iterations, want %d", got, want)
	}

	segs := []string{"0:1/4", "1/4:2/4", "2/4:3/4", "3/4:1"}
	results := make([]*load.Result, len(segs))
	errs := make([]error, len(segs))
	var wg sync.WaitGroup
	for i, s := range segs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := base
			c.ExecutionSegment, c.ExecutionSegmentSequence = s, "0,1/4,2/4,3/4,1"
			results[i], errs[i] = load.Run(ctx, &c, load.Options{})
		}()
	}
	wg.Wait()
	var in []Input
	union := timing.NewTrend()
	total := int64(0)
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("segment %s: %v", segs[i], errs[i])
		}
		if got := started(r); got != want/4 {
			t.Errorf("segment %s started %d iterations, want %d", segs[i], got, want/4)
		}
		total += started(r)
		union.Merge(r.Trend("http_req_duration"))
		in = append(in, Input{Name: fmt.Sprint("segment ", segs[i]), Doc: r.Document()})
	}
	if total != started(whole) {
		t.Errorf("the segments started %d iterations, one process %d", total, started(whole))
	}
	res, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Doc.Metrics
	if got := int64(m["iterations"].Values["count"] + m["dropped_iterations"].Values["count"]); got+sumInterrupted(results) != want {
		t.Errorf("merged document: %d iterations + dropped, want %d", got, want)
	}
	if res.Segments != "0:1" {
		t.Errorf("coverage %q", res.Segments)
	}
	for _, st := range []string{"med", "p(95)", "p(99)", "max"} {
		w, err := union.Stat(st)
		if err != nil {
			t.Fatal(err)
		}
		if got := m["http_req_duration"].Values[st]; got != w {
			t.Errorf("merged %s %v, the union of the segments' trends %v", st, got, w)
		}
	}
	if obs, err := diagnose.FromDocument(res.Doc); err != nil {
		t.Errorf("analyze the merge: %v", err)
	} else {
		diagnose.Analyze(obs, diagnose.DefaultConfig())
	}
}

func sumInterrupted(rs []*load.Result) int64 {
	n := int64(0)
	for _, r := range rs {
		n += r.Interrupted
	}
	return n
}
