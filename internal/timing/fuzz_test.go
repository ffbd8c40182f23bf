package timing

import (
	"math"
	"testing"
)

func FuzzParsePercentile(f *testing.F) {
	for _, s := range []string{"p(95)", "p(99.9)", "p(0)", "p(100)", "p(-1)", "p(NaN)", "p(1e2)", "p95", "p()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePercentile(s)
		if err == nil && (p < 0 || p > 100 || math.IsNaN(p)) {
			t.Fatalf("%q parsed to %v", s, p)
		}
	})
}
