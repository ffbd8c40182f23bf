package timing

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTrendPercentilesWithinHDRPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tr := NewTrend()
	var all []time.Duration
	for range 100_000 {
		// 20 µs .. 5 s, log-uniform: every octave of the geometry is used.
		d := time.Duration(math.Exp(math.Log(20e3) + r.Float64()*(math.Log(5e9)-math.Log(20e3))))
		tr.Add(d)
		all = append(all, d)
	}
	slices.Sort(all)
	for _, p := range []float64{1, 50, 90, 95, 99, 99.9} {
		exact := k6Percentile(all, p)
		got := tr.Percentile(p)
		// 3 significant digits: within 0.1 % (plus 1 µs of rounding).
		if diff := math.Abs(float64(got - exact)); diff > 0.001*float64(exact)+1e3 {
			t.Errorf("p(%v) = %v, exact %v (diff %v)", p, got, exact, time.Duration(diff))
		}
	}
	if tr.Min() != all[0] || tr.Max() != all[len(all)-1] || tr.Count() != int64(len(all)) {
		t.Errorf("min/max/count = %v/%v/%d, want %v/%v/%d", tr.Min(), tr.Max(), tr.Count(), all[0], all[len(all)-1], len(all))
	}
}

// k6Percentile is k6's definition on the raw samples (its TrendSink.P):
// linear interpolation between the samples at floor and ceil of p·(n−1).
func k6Percentile(sorted []time.Duration, p float64) time.Duration {
	i := p / 100 * float64(len(sorted)-1)
	lo, hi := sorted[int(math.Floor(i))], sorted[int(math.Ceil(i))]
	return lo + time.Duration(float64(hi-lo)*(i-math.Floor(i)))
}

// TestTrendPercentilesInterpolateLikeK6: with few samples the method shows
// (nearest rank would answer the max for p(95) of 10 samples).
func TestTrendPercentilesInterpolateLikeK6(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	tests := []struct {
		name    string
		samples []time.Duration
	}{
		{"one", []time.Duration{ms(50.2)}},
		{"two", []time.Duration{ms(50), ms(60)}},
		{"ten uploads", []time.Duration{ms(881), ms(884), ms(879), ms(1020), ms(890), ms(885), ms(883), ms(902), ms(887), ms(1500)}},
		{"µs phases", []time.Duration{12 * time.Microsecond, 15 * time.Microsecond, 9 * time.Microsecond, 31 * time.Microsecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTrend()
			for _, d := range tt.samples {
				tr.Add(d)
			}
			sorted := slices.Sorted(slices.Values(tt.samples))
			for _, p := range []float64{0, 25, 50, 90, 95, 99, 100} {
				want := k6Percentile(sorted, p)
				got := tr.Percentile(p)
				// within 0.1 % (3 significant digits) plus 1 µs of rounding
				if diff := math.Abs(float64(got - want)); diff > 0.001*float64(want)+1e3 {
					t.Errorf("p(%v) = %v, k6 says %v", p, got, want)
				}
			}
		})
	}
}

func TestTrendMergeEqualsOneTrend(t *testing.T) {
	one, a, b := NewTrend(), NewTrend(), NewTrend()
	for i := range 10_000 {
		d := time.Duration(i) * 37 * time.Microsecond
		one.Add(d)
		if i%3 == 0 {
			a.Add(d)
		} else {
			b.Add(d)
		}
	}
	a.Merge(b)
	for _, s := range FullTrendStats() {
		x, _ := one.Stat(s)
		y, _ := a.Stat(s)
		if x != y {
			t.Errorf("%s: merged %v, single %v", s, y, x)
		}
	}
}

func TestTrendEncodeRoundTrip(t *testing.T) {
	tr := NewTrend()
	for _, ms := range []float64{0.028, 0.5, 50.1, 51.3, 503.46, 1907} {
		tr.Add(time.Duration(ms * float64(time.Millisecond)))
	}
	s, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeTrend(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range FullTrendStats() {
		x, _ := tr.Stat(st)
		y, _ := back.Stat(st)
		if x != y {
			t.Errorf("%s: decoded %v, original %v", st, y, x)
		}
	}
}

func TestDecodeTrendErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "missing ';'",
		"1,2,3;AAAA":          "count,sum,min,max",
		"1,2,3,x;AAAA":        "field 4",
		"1,2,3,4;not base64!": "not base64",
		"1,2,3,4;AAAA":        "decode trend",
	} {
		_, err := DecodeTrend(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeTrend(%q) = %v, want error containing %q", in, err, want)
		}
	}
}

func TestTrendStats(t *testing.T) {
	tr := NewTrend()
	for i := 1; i <= 100; i++ {
		tr.Add(time.Duration(i) * time.Millisecond)
	}
	v, err := tr.Values([]string{"avg", "min", "med", "max", "p(95)", "p(99.9)", "count"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"avg": 50.5, "min": 1, "med": 50.5, "max": 100, "p(95)": 95.05, "p(99.9)": 99.9, "count": 100} // k6: interpolated
	for k, w := range want {
		if math.Abs(v[k]-w) > 0.05 {
			t.Errorf("%s = %v, want %v", k, v[k], w)
		}
	}
	if _, err := tr.Stat("p95"); err == nil {
		t.Error("p95 without parentheses must be refused")
	}
	if _, err := tr.Stat("p(101)"); err == nil {
		t.Error("p(101) must be refused")
	}
}
