package units

import (
	"testing"
)

// Each parser gets a fuzz target: whatever the text, it returns a value or
// an error, never panics, and what it accepts prints as text that parses
// back to the same value (flags and YAML print what they read).

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"256KiB", "8 MiB", "1.5GB", "0", "10B", "8K", "-1KiB", "9223372036854775807B", "1e3KB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("%q parsed to a negative size %d", s, v)
		}
		back, err := ParseSize(v.String())
		if err != nil || back != v {
			t.Fatalf("%q → %d prints %q, which parses to %d, %v", s, v, v.String(), back, err)
		}
	})
}

func FuzzParseByteRate(f *testing.F) {
	for _, s := range []string{"10MiB/s", "8 MiB/s", "1.5KB/s", "100B/s", "0", "1Gbps", "10MiB", "-1KiB/s", "NaN/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseByteRate(s)
		if err != nil {
			return
		}
		if v < 0 || v != v {
			t.Fatalf("%q parsed to %v", s, float64(v))
		}
		back, err := ParseByteRate(v.String())
		if err != nil || back != v {
			t.Fatalf("%q → %v prints %q, which parses to %v, %v", s, float64(v), v.String(), float64(back), err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100/s", "6000/m", "1/h", "2.5/s", "3/100ms", "10/1m30s", "0/s", "-1/s", "1/0s", "5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err != nil {
			return
		}
		if v.N < 0 || v.N != v.N || v.Per < 0 {
			t.Fatalf("%q parsed to %+v", s, v)
		}
		back, err := ParseRate(v.String())
		if err != nil || back.PerSecond() != v.PerSecond() {
			t.Fatalf("%q → %+v prints %q, which parses to %+v, %v", s, v, v.String(), back, err)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"50ms", "1m30s", "0", "1.5s", "-1s", "2562047h", "1", "10us", "3µs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDuration(s)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("%q parsed to a negative duration %v", s, v)
		}
		back, err := ParseDuration(v.String())
		if err != nil || back != v {
			t.Fatalf("%q → %v prints %q, which parses to %v, %v", s, v, v.String(), back, err)
		}
	})
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"50ms", "normal:50ms,5ms", "lognormal:p50=40ms,p99=200ms", "uniform:20ms..80ms", "exponential:50ms",
		"exp:1s", "fixed:3ms", "lognormal:median=1s", "normal:", "uniform:2s..1s", "-5ms", "weibull:1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDist(s)
		if err != nil {
			return
		}
		if m := d.Mean(); m < 0 {
			t.Fatalf("%q has a negative mean %v", s, m)
		}
		back, err := ParseDist(d.String())
		if err != nil || back.String() != d.String() || back.Mean() != d.Mean() {
			t.Fatalf("%q → %v does not parse back: %v, %v", s, d, back, err)
		}
	})
}
