package metrics

import (
	"math"
	"testing"
)

func TestHumanizeLikeK6(t *testing.T) {
	// Values from k6-samples/summary-full.txt and summary-export.console-run.json.
	durations := []struct {
		ms   float64
		want string
	}{
		{0.026416, "26.41µs"}, {0.000946, "946ns"}, {0, "0s"}, {51.37219, "51.37ms"}, {2.31, "2.31ms"},
		{949.4599, "949.45ms"}, {1500, "1.5s"}, {90000, "1m30s"}, {3725000, "1h2m5s"}, {50.5, "50.5ms"},
	}
	for _, d := range durations {
		if got := HumanizeDuration(d.ms, ""); got != d.want {
			t.Errorf("HumanizeDuration(%v) = %q, want %q", d.ms, got, d.want)
		}
	}
	bytes := []struct {
		b    float64
		want string
	}{{38994, "39 kB"}, {7765.57, "7.8 kB"}, {9, "9 B"}, {22407, "22 kB"}, {4462.3, "4.5 kB"}, {1.5e9, "1.5 GB"}}
	for _, b := range bytes {
		if got := HumanizeBytes(b.b); got != b.want {
			t.Errorf("HumanizeBytes(%v) = %q, want %q", b.b, got, b.want)
		}
	}
	if got := humanizeValue(58.08221734, Metric{Type: TypeCounter, Contains: ContainsDefault}, ""); got != "58.082217" {
		t.Errorf("counter rate = %q", got)
	}
	if got := humanizeValue(0.44549, Metric{Type: TypeRate}, ""); got != "44.54%" {
		t.Errorf("rate = %q", got)
	}
	if got := HumanizeDuration(51.37219, "ms"); got != "51.37ms" {
		t.Errorf("unit ms = %q", got)
	}
}

func TestFormatMs(t *testing.T) {
	for _, tt := range []struct {
		ms   float64
		want string
	}{{1.5, "1.5ms"}, {-1.5, "−1.5ms"}, {0.0265, "26.5µs"}, {math.NaN(), "—"}} {
		if got := FormatMs(tt.ms); got != tt.want {
			t.Errorf("FormatMs(%v) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}
