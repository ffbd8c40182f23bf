package load

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// The sequences of the table tests: even, uneven thirds/halves, and a thin
// slice at each end.
var testSequences = []struct {
	seq  string
	segs []string
	len  []float64
}{
	{"0,1/4,2/4,3/4,1", []string{"0:1/4", "1/4:2/4", "2/4:3/4", "3/4:1"}, []float64{0.25, 0.25, 0.25, 0.25}},
	{"0,1/3,1/2,1", []string{"0:1/3", "1/3:1/2", "1/2:1"}, []float64{1.0 / 3, 1.0 / 6, 0.5}},
	{"0,0.1,0.9,1", []string{"0:0.1", "0.1:0.9", "0.9:1"}, []float64{0.1, 0.8, 0.1}},
}

func mustStripe(t *testing.T, seg, seq string) *stripe {
	t.Helper()
	st, err := newStripe(seg, seq)
	if err != nil {
		t.Fatalf("newStripe(%q, %q): %v", seg, seq, err)
	}
	return st
}

func TestSegmentParse(t *testing.T) {
	for _, c := range []struct{ seg, seq, want, wantSeq string }{
		{"1/4:2/4", "0,1/4,2/4,3/4,1", "1/4:1/2", "0,1/4,1/2,3/4,1"},
		{"25%:50%", "", "1/4:1/2", "0,1/4,1/2,1"}, // no sequence: the segment and its gaps
		{"0.5", "", "0:1/2", "0,1/2,1"},           // one value v is 0:v
		{"1/2:3/4", "1/2,3/4", "1/2:3/4", "0,1/2,3/4,1"},
		{"", "", "0:1", "0,1"},
	} {
		st := mustStripe(t, c.seg, c.seq)
		if st.seg.String() != c.want || st.seq != c.wantSeq {
			t.Errorf("%q in %q: got %s of %s, want %s of %s", c.seg, c.seq, st.seg, st.seq, c.want, c.wantSeq)
		}
	}
	for _, c := range []struct{ seg, seq, field string }{
		{"1/2:1/4", "", "executionSegment"},
		{"0:1.5", "", "executionSegment"},
		{"x:1", "", "executionSegment"},
		{"0:1/3", "0,1/4,1", "executionSegment"}, // not one of the sequence's segments
		{"0:1/4", "0,1/2,1/4,1", "executionSegmentSequence"},
		{"0:1/4", "0,1/4,abc", "executionSegmentSequence"},
		{"0:1/1000003", "0,1/1000003,1/999983,1", "executionSegmentSequence"}, // LCD too large
	} {
		_, err := newStripe(c.seg, c.seq)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%q in %q: error %v, want one naming %s", c.seg, c.seq, err, c.field)
		}
	}
}

// k6's documentation of ExecutionTuple: 0,1/2,3/4,1 stripes iterations as
// 0 2 4 6 …, 1 5 9 …, 3 7 11 …, and scales 1..12 as the three rows below.
func TestSegmentK6Example(t *testing.T) {
	const seq = "0,1/2,3/4,1"
	want := []struct {
		seg   string
		first []int64
		scale []int64 // scale(1..12)
	}{
		{"0:1/2", []int64{0, 2, 4, 6, 8, 10}, []int64{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}},
		{"1/2:3/4", []int64{1, 5, 9}, []int64{0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3}},
		{"3/4:1", []int64{3, 7, 11}, []int64{0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3}},
	}
	for _, w := range want {
		st := mustStripe(t, w.seg, seq)
		for k, g := range w.first {
			if got := st.global(int64(k)); got != g {
				t.Errorf("%s: item %d is global %d, want %d", w.seg, k, got, g)
			}
		}
		for v, s := range w.scale {
			if got := st.scale(int64(v + 1)); got != s {
				t.Errorf("%s: scale(%d) = %d, want %d", w.seg, v+1, got, s)
			}
		}
	}
}

// Every global item belongs to exactly one segment, each segment's share
// of v is v·length rounded one way or the other, and the shares add up.
func TestSegmentStripesPartition(t *testing.T) {
	for _, sq := range testSequences {
		var sts []*stripe
		for _, s := range sq.segs {
			sts = append(sts, mustStripe(t, s, sq.seq))
		}
		const items = 1000
		owner := make([]int, items)
		for i := range owner {
			owner[i] = -1
		}
		for si, st := range sts {
			for k := int64(0); ; k++ {
				g := st.global(k)
				if g >= items {
					break
				}
				if owner[g] >= 0 {
					t.Fatalf("%s: item %d taken by %s and %s", sq.seq, g, sq.segs[owner[g]], sq.segs[si])
				}
				owner[g] = si
			}
		}
		for g, o := range owner {
			if o < 0 {
				t.Fatalf("%s: item %d taken by no segment", sq.seq, g)
			}
		}
		for v := int64(0); v <= items; v++ {
			sum := int64(0)
			for si, st := range sts {
				got := st.scale(v)
				n := int64(0) // the definition: how many of items 0..v-1 it owns
				for g := int64(0); g < v; g++ {
					if owner[g] == si {
						n++
					}
				}
				if got != n || math.Abs(float64(got)-float64(v)*sq.len[si]) >= 1 {
					t.Fatalf("%s %s: scale(%d) = %d, owns %d, share %.3f", sq.seq, sq.segs[si], v, got, n, float64(v)*sq.len[si])
				}
				sum += got
			}
			if sum != v {
				t.Fatalf("%s: shares of %d add up to %d", sq.seq, v, sum)
			}
		}
	}
}

func segmentRuns(t *testing.T, cfg Config, seg, seq string) *scenarioRun {
	t.Helper()
	c := cfg
	c.URL = "http://127.0.0.1:1/"
	c.ExecutionSegment, c.ExecutionSegmentSequence = seg, seq
	scs, err := prepare(&c)
	if err != nil {
		t.Fatalf("%s of %s: %v", seg, seq, err)
	}
	return scs[0]
}

func TestSegmentClosedExecutorsPartition(t *testing.T) {
	dur := units.Duration(10 * time.Second)
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{ConstantVUs, Config{Executor: ConstantVUs, VUs: 7, Duration: dur}},
		{PerVUIterations, Config{Executor: PerVUIterations, VUs: 11, Iterations: 3}},
		{SharedIterations, Config{Executor: SharedIterations, VUs: 5, Iterations: 103}},
	} {
		whole := segmentRuns(t, c.cfg, "", "")
		for _, sq := range testSequences {
			vus, iters := 0, int64(0)
			for _, s := range sq.segs {
				sc := segmentRuns(t, c.cfg, s, sq.seq)
				vus += sc.plan.vus
				switch x := sc.x.(type) {
				case segmentedExecutor:
					switch y := x.executor.(type) {
					case perVUIterations:
						iters += int64(sc.plan.vus) * y.iterations()
					case sharedIterations:
						iters += y.cfg.Iterations
					}
				case idleSegment:
				default:
					t.Fatalf("%s %s: executor %T", c.name, s, sc.x)
				}
			}
			if vus != whole.plan.vus {
				t.Errorf("%s over %s: %d VUs in all, one process has %d", c.name, sq.seq, vus, whole.plan.vus)
			}
			wantIters := map[string]int64{PerVUIterations: 33, SharedIterations: 103}[c.name]
			if iters != wantIters {
				t.Errorf("%s over %s: %d iterations in all, want %d", c.name, sq.seq, iters, wantIters)
			}
		}
	}
}

func vusAt(sched []vuChange, at time.Duration) int {
	n := 0
	for _, c := range sched {
		if c.At <= at {
			n = c.VUs
		}
	}
	return n
}

func TestSegmentRampingVUsPartition(t *testing.T) {
	cfg := Config{Executor: RampingVUs, StartVUs: 3, Stages: []Stage{
		{units.Duration(10 * time.Second), 17}, {units.Duration(5 * time.Second), 17}, {units.Duration(7 * time.Second), 2}, {0, 9}}}
	wholeRun := segmentRuns(t, cfg, "", "")
	whole := wholeRun.x.(rampingVUs).schedule()
	for _, sq := range testSequences {
		var scheds [][]vuChange
		stepVUs := make([]int, len(wholeRun.plan.steps))
		for _, s := range sq.segs {
			sc := segmentRuns(t, cfg, s, sq.seq)
			scheds = append(scheds, sc.x.(segmentedExecutor).executor.(rampingVUs).schedule())
			for i, st := range sc.plan.steps {
				stepVUs[i] += st.vus
				if st.name != wholeRun.plan.steps[i].name {
					t.Errorf("%s %s: step %d named %q, the whole run's %q", sq.seq, s, i, st.name, wholeRun.plan.steps[i].name)
				}
			}
		}
		for i, st := range wholeRun.plan.steps {
			if stepVUs[i] != st.vus {
				t.Errorf("%s: step %d targets %d VUs in all, one process %d", sq.seq, i, stepVUs[i], st.vus)
			}
		}
		// At every instant (each change, and just before it) the segments'
		// VUs add up to the whole run's.
		for _, c := range whole {
			for _, at := range []time.Duration{c.At - 1, c.At} {
				sum := 0
				for _, s := range scheds {
					sum += vusAt(s, at)
				}
				if want := vusAt(whole, at); sum != want {
					t.Errorf("%s at %s: segments run %d VUs, one process %d", sq.seq, at, sum, want)
				}
			}
		}
	}
}

func arrivals(p pacer) []time.Duration {
	var out []time.Duration
	for i := int64(0); ; i++ {
		at, ok := p.at(i)
		if !ok {
			return out
		}
		out = append(out, at)
	}
}

func TestSegmentArrivalRatesPartition(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{ConstantArrivalRate, Config{Executor: ConstantArrivalRate, Rate: units.Rate{N: 37, Per: time.Second},
			Duration: units.Duration(3 * time.Second), PreAllocatedVUs: 10, MaxVUs: 21}},
		{RampingArrivalRate, Config{Executor: RampingArrivalRate, StartRate: 5, PreAllocatedVUs: 9, MaxVUs: 13, Stages: []Stage{
			{units.Duration(2 * time.Second), 50}, {units.Duration(time.Second), 50}, {units.Duration(2 * time.Second), 0}}}},
	} {
		whole := segmentRuns(t, c.cfg, "", "")
		all := arrivals(whole.x.(*arrivalRate).pacer)
		if len(all) == 0 {
			t.Fatalf("%s: no arrivals", c.name)
		}
		for _, sq := range testSequences {
			got := map[time.Duration]int{}
			total, pre, mx := 0, 0, 0
			wholeSteps := whole.x.(*arrivalRate).steps
			rates := make([]float64, len(wholeSteps))
			for _, s := range sq.segs {
				a := segmentRuns(t, c.cfg, s, sq.seq).x.(segmentedExecutor).executor.(*arrivalRate)
				for i, st := range a.steps {
					rates[i] += st.rate
					if st.name != wholeSteps[i].name {
						t.Errorf("%s %s: step %d named %q, the whole run's %q", sq.seq, s, i, st.name, wholeSteps[i].name)
					}
				}
				for _, at := range arrivals(a.pacer) {
					got[at]++
					total++
				}
				pre, mx = pre+a.preVUs, mx+a.maxVUs
			}
			want := map[time.Duration]int{}
			for _, at := range all {
				want[at]++
			}
			if total != len(all) {
				t.Errorf("%s over %s: %d arrivals in all, one process %d", c.name, sq.seq, total, len(all))
			}
			for at, n := range want {
				if got[at] != n {
					t.Errorf("%s over %s: %d arrivals at %s, one process %d", c.name, sq.seq, got[at], at, n)
				}
			}
			for i, st := range wholeSteps {
				if math.Abs(rates[i]-st.rate) > 1e-9 {
					t.Errorf("%s over %s: step %d at %v/s in all, one process %v/s", c.name, sq.seq, i, rates[i], st.rate)
				}
			}
			wp, wm := arrivalVUs(&c.cfg)
			if pre != wp || mx != wm {
				t.Errorf("%s over %s: VUs %d-%d in all, one process %d-%d", c.name, sq.seq, pre, mx, wp, wm)
			}
		}
	}
}

// 5 VUs and 103 shared iterations over 0,1/3,1/2,1, worked by hand from
// the dealing rule: the cycle of 6 goes 1/2:1 {0,2,4}, 0:1/3 {1,3},
// 1/3:1/2 {5}, so the VUs split 2, 0, 3; the iterations are then dealt over
// 0,2/5,1 (cycle of 5: 1/2:1 {0,2,4}, 0:1/3 {1,3}): 103 = 20·5 + 3 gives
// 40+1 and 60+2. The segment with no VU gets no iteration.
func TestSegmentSharedIterationsFollowVUs(t *testing.T) {
	cfg := Config{Executor: SharedIterations, VUs: 5, Iterations: 103}
	for _, c := range []struct {
		seg        string
		vus        int
		iterations int64
	}{{"0:1/3", 2, 41}, {"1/3:1/2", 0, 0}, {"1/2:1", 3, 62}} {
		sc := segmentRuns(t, cfg, c.seg, "0,1/3,1/2,1")
		var iters int64
		if x, ok := sc.x.(segmentedExecutor); ok {
			iters = x.executor.(sharedIterations).cfg.Iterations
		}
		if sc.plan.vus != c.vus || iters != c.iterations {
			t.Errorf("%s: %d VUs, %d iterations; want %d, %d", c.seg, sc.plan.vus, iters, c.vus, c.iterations)
		}
	}
}

// k6's option names in a config file (as k6 inspect prints them) are read;
// in a scenario they are refused, being the whole test's.
func TestSegmentInConfigFile(t *testing.T) {
	cfg, err := DecodeConfig(strings.NewReader("url: http://127.0.0.1:1/\nvus: 8\nduration: 1s\nexecutionSegment: \"1/4:2/4\"\nexecutionSegmentSequence: \"0,1/4,2/4,3/4,1\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	scs, err := prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if scs[0].plan.vus != 2 || !strings.Contains(scs[0].plan.text, "execution segment 1/4:1/2 of 0,1/4,1/2,3/4,1") {
		t.Errorf("plan %d VUs %q: want 2 VUs of segment 1/4:1/2", scs[0].plan.vus, scs[0].plan.text)
	}
	cfg, err = DecodeConfig(strings.NewReader("url: http://127.0.0.1:1/\nscenarios:\n  a:\n    executor: constant-vus\n    duration: 1s\n    executionSegment: \"0:1/2\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prepare(cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "scenarios.a.executionSegment") {
		t.Errorf("segment in a scenario: %v", err)
	}
}
