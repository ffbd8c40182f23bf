package metrics

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
		exact := all[int(math.Ceil(p/100*float64(len(all))))-1]
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
	for _, s := range FullTrendStats {
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
	for _, st := range FullTrendStats {
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
	want := map[string]float64{"avg": 50.5, "min": 1, "med": 50, "max": 100, "p(95)": 95, "p(99.9)": 100, "count": 100}
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
