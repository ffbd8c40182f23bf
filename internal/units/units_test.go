package units

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    Size
		wantErr string
	}{
		{in: "256KiB", want: 256 * 1024},
		{in: "8MB", want: 8_000_000},
		{in: "1.5 MiB", want: 1536 * 1024},
		{in: "4096", want: 4096},
		{in: "10b", want: 10},
		{in: "1GiB", want: 1 << 30},
		{in: "8K", wantErr: "ambiguous"},
		{in: "8 parsecs", wantErr: "unknown unit"},
		{in: "-1KiB", wantErr: "negative"},
		{in: "KiB", wantErr: "want a number"},
		{in: "", wantErr: "want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && got != tt.want {
				t.Fatalf("ParseSize(%q) = %d, want %d", tt.in, got, tt.want)
			}
			if err == nil {
				back, err := ParseSize(got.String())
				if err != nil || back != got {
					t.Fatalf("round trip %q -> %q -> %d (%v)", tt.in, got.String(), back, err)
				}
			}
		})
	}
}

func TestParseByteRate(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{in: "8MiB/s", want: 8 << 20},
		{in: "10240KiB/s", want: 10 << 20},
		{in: "1Gbit/s", want: 125e6},
		{in: "100Mbps", want: 12.5e6},
		{in: "8MiB", wantErr: "size per second"},
		{in: "x/s", wantErr: "want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseByteRate(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil && got.BytesPerSecond() != tt.want {
				t.Fatalf("got %v, want %v", got.BytesPerSecond(), tt.want)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		perSec  float64
		wantErr string
	}{
		{in: "100/s", perSec: 100},
		{in: "6000/m", perSec: 100},
		{in: "5/100ms", perSec: 50},
		{in: "1/10s", perSec: 0.1},
		{in: "100", wantErr: "events per period"},
		{in: "100/fortnight", wantErr: "period"},
		{in: "-3/s", wantErr: "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			checkErr(t, err, tt.wantErr)
			if err == nil {
				if math.Abs(got.PerSecond()-tt.perSec) > 1e-9 {
					t.Fatalf("got %v/s, want %v/s", got.PerSecond(), tt.perSec)
				}
				back, err := ParseRate(got.String())
				if err != nil || back != got {
					t.Fatalf("round trip %q -> %q (%v)", tt.in, got.String(), err)
				}
			}
		})
	}
}

func TestParseDuration(t *testing.T) {
	for in, wantErr := range map[string]string{"450ms": "", "0": "", "-1s": "negative", "5": "Go syntax", "soon": "Go syntax"} {
		_, err := ParseDuration(in)
		checkErr(t, err, wantErr)
	}
}

func TestDistSamples(t *testing.T) {
	tests := []struct {
		in         string
		p50, p99   time.Duration
		tolerance  float64 // relative
		min, max   time.Duration
		mean       time.Duration
		meanWithin float64
	}{
		{in: "50ms", p50: 50 * time.Millisecond, p99: 50 * time.Millisecond, min: 50 * time.Millisecond, max: 50 * time.Millisecond, mean: 50 * time.Millisecond},
		{in: "normal:50ms,5ms", p50: 50 * time.Millisecond, p99: 61632 * time.Microsecond, tolerance: 0.02, mean: 50 * time.Millisecond, meanWithin: 0.01},
		{in: "lognormal:p50=40ms,p99=200ms", p50: 40 * time.Millisecond, p99: 200 * time.Millisecond, tolerance: 0.05},
		{in: "uniform:20ms..80ms", p50: 50 * time.Millisecond, p99: 79400 * time.Microsecond, tolerance: 0.02, min: 20 * time.Millisecond, max: 80 * time.Millisecond, mean: 50 * time.Millisecond, meanWithin: 0.01},
		{in: "exponential:50ms", p50: 34657 * time.Microsecond, p99: 230259 * time.Microsecond, tolerance: 0.05, mean: 50 * time.Millisecond, meanWithin: 0.03},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseDist(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			const n = 50_000
			s := make([]time.Duration, n)
			var sum float64
			for i := range s {
				s[i] = d.Sample(r)
				sum += float64(s[i])
			}
			slices.Sort(s)
			within(t, "p50", s[n/2], tt.p50, tt.tolerance)
			within(t, "p99", s[n*99/100], tt.p99, tt.tolerance)
			if tt.max > 0 && (s[0] < tt.min || s[n-1] > tt.max) {
				t.Errorf("range [%v, %v] outside [%v, %v]", s[0], s[n-1], tt.min, tt.max)
			}
			if tt.mean > 0 {
				within(t, "mean", time.Duration(sum/n), tt.mean, tt.meanWithin)
				within(t, "Mean()", d.Mean(), tt.mean, 0.001)
			}
			back, err := ParseDist(d.String())
			if err != nil || back.String() != d.String() {
				t.Errorf("round trip %q -> %q (%v)", tt.in, d.String(), err)
			}
		})
	}
}

func TestParseDistErrors(t *testing.T) {
	for in, want := range map[string]string{
		"normal:50ms":                 "MEAN,STDDEV",
		"lognormal:p50=80ms,p99=40ms": "p50 <= p99",
		"lognormal:p50=40ms,p90=80ms": "unknown parameter",
		"uniform:80ms..20ms":          "LO <= HI",
		"pareto:1ms":                  "unknown distribution",
		"soon":                        "want a duration",
		"exponential:-1s":             "mean",
	} {
		_, err := ParseDist(in)
		checkErr(t, err, want)
	}
}

func TestYAMLNamesLine(t *testing.T) {
	var v struct {
		Delay Dist     `yaml:"delay"`
		Size  Size     `yaml:"size"`
		Rate  Rate     `yaml:"rate"`
		Cap   ByteRate `yaml:"cap"`
		Wait  Duration `yaml:"wait"`
	}
	good := "delay: normal:50ms,5ms\nsize: 256KiB\nrate: 100/s\ncap: 10MiB/s\nwait: 1s\n"
	if err := yaml.Unmarshal([]byte(good), &v); err != nil {
		t.Fatal(err)
	}
	if v.Size != 256*KiB || v.Rate.PerSecond() != 100 || v.Cap != 10*1024*1024 || v.Wait.D() != time.Second || v.Delay.Mean() != 50*time.Millisecond {
		t.Fatalf("decoded %+v", v)
	}
	err := yaml.Unmarshal([]byte("size: 1KiB\nrate: fast\n"), &v)
	checkErr(t, err, "line 2")
	err = yaml.Unmarshal([]byte("size: [1, 2]\n"), &v)
	checkErr(t, err, "found a list")
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("want error containing %q, got none", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

func within(t *testing.T, name string, got, want time.Duration, rel float64) {
	t.Helper()
	if math.Abs(float64(got-want)) > rel*float64(want) {
		t.Errorf("%s = %v, want %v ± %.0f%%", name, got, want, rel*100)
	}
}
