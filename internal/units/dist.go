package units

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Dist is a distribution of durations, written as one string so that a flag
// and a YAML field read the same:
//
//	50ms                          fixed
//	normal:50ms,5ms               mean, standard deviation (clamped at 0)
//	lognormal:p50=40ms,p99=200ms  median and 99th percentile
//	uniform:20ms..80ms            inclusive bounds
//	exponential:50ms              mean (memoryless arrivals, service times)
//
// The zero Dist is a fixed 0.
type Dist struct {
	kind  distKind
	a, b  time.Duration // fixed: a; normal: mean, stddev; uniform: lo, hi; exponential: mean; lognormal: p50, p99
	mu    float64       // lognormal: ln(p50 in ns)
	sigma float64       // lognormal: shape
}

type distKind uint8

const (
	distFixed distKind = iota
	distNormal
	distLognormal
	distUniform
	distExponential
)

// z99 is the standard normal quantile at 0.99.
const z99 = 2.3263478740408408

// Fixed returns a distribution that always yields d.
func Fixed(d time.Duration) Dist { return Dist{kind: distFixed, a: d} }

// ParseDist parses the forms listed on Dist.
func ParseDist(s string) (Dist, error) {
	t := strings.TrimSpace(s)
	name, args, hasArgs := strings.Cut(t, ":")
	if !hasArgs {
		d, err := ParseDuration(t)
		if err != nil {
			if strings.HasPrefix(t, "-") {
				return Dist{}, fmt.Errorf("delay %q: must not be negative", s)
			}
			return Dist{}, fmt.Errorf("delay %q: want a duration (50ms) or normal:MEAN,SD, lognormal:p50=X,p99=Y, uniform:LO..HI, exponential:MEAN", s)
		}
		return Fixed(d.D()), nil
	}
	bad := func(format string, a ...any) (Dist, error) {
		return Dist{}, fmt.Errorf("delay %q: "+format, append([]any{s}, a...)...)
	}
	switch strings.ToLower(name) {
	case "fixed":
		d, err := ParseDuration(args)
		if err != nil {
			return bad("%v", err)
		}
		return Fixed(d.D()), nil
	case "normal":
		m, sd, ok := strings.Cut(args, ",")
		if !ok {
			return bad("normal takes MEAN,STDDEV, e.g. normal:50ms,5ms")
		}
		md, err1 := ParseDuration(m)
		sdd, err2 := ParseDuration(sd)
		if err1 != nil || err2 != nil {
			return bad("normal takes two durations, e.g. normal:50ms,5ms")
		}
		return Dist{kind: distNormal, a: md.D(), b: sdd.D()}, nil
	case "lognormal":
		var p50, p99 time.Duration
		for _, kv := range strings.Split(args, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			d, err := ParseDuration(v)
			if !ok || err != nil {
				return bad("lognormal takes p50=DURATION,p99=DURATION")
			}
			switch strings.ToLower(k) {
			case "p50", "median":
				p50 = d.D()
			case "p99":
				p99 = d.D()
			default:
				return bad("lognormal: unknown parameter %q (want p50, p99)", k)
			}
		}
		if p50 <= 0 || p99 < p50 {
			return bad("lognormal needs 0 < p50 <= p99")
		}
		mu := math.Log(float64(p50))
		return Dist{kind: distLognormal, a: p50, b: p99, mu: mu, sigma: (math.Log(float64(p99)) - mu) / z99}, nil
	case "uniform":
		lo, hi, ok := strings.Cut(args, "..")
		if !ok {
			return bad("uniform takes LO..HI, e.g. uniform:20ms..80ms")
		}
		l, err1 := ParseDuration(lo)
		h, err2 := ParseDuration(hi)
		if err1 != nil || err2 != nil || h < l {
			return bad("uniform takes LO..HI with LO <= HI, e.g. uniform:20ms..80ms")
		}
		return Dist{kind: distUniform, a: l.D(), b: h.D()}, nil
	case "exponential", "exp":
		m, err := ParseDuration(args)
		if err != nil {
			return bad("exponential takes a mean, e.g. exponential:50ms")
		}
		return Dist{kind: distExponential, a: m.D()}, nil
	}
	return bad("unknown distribution %q (want fixed, normal, lognormal, uniform, exponential)", name)
}

// IsZero reports whether the distribution always yields 0.
func (d Dist) IsZero() bool { return d.kind == distFixed && d.a == 0 }

// IsFixed reports whether every sample is the same; Sample then needs no rand.
func (d Dist) IsFixed() bool { return d.kind == distFixed }

// Mean returns the expected value, for capacity estimates and reports.
func (d Dist) Mean() time.Duration {
	switch d.kind {
	case distNormal, distExponential:
		return d.a // clamping at 0 is ignored: it matters only for SD ≳ mean
	case distUniform:
		return (d.a + d.b) / 2
	case distLognormal:
		// A wide spread (p99 far above p50) overflows a Duration: clamp
		// as Sample does rather than wrap to a negative mean.
		return clampDuration(math.Exp(d.mu + d.sigma*d.sigma/2))
	}
	return d.a
}

// clampDuration converts ns to a Duration within 0..MaxInt64.
func clampDuration(ns float64) time.Duration {
	switch {
	case ns < 0 || ns != ns:
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Sample draws one value (never negative). r may be nil for a fixed Dist.
func (d Dist) Sample(r *rand.Rand) time.Duration {
	var v float64
	switch d.kind {
	case distFixed:
		return d.a
	case distNormal:
		v = float64(d.a) + r.NormFloat64()*float64(d.b)
	case distLognormal:
		v = math.Exp(d.mu + r.NormFloat64()*d.sigma)
	case distUniform:
		v = float64(d.a) + r.Float64()*float64(d.b-d.a)
	case distExponential:
		v = r.ExpFloat64() * float64(d.a)
	}
	return clampDuration(v)
}

func (d Dist) String() string {
	switch d.kind {
	case distNormal:
		return "normal:" + d.a.String() + "," + d.b.String()
	case distLognormal:
		return "lognormal:p50=" + d.a.String() + ",p99=" + d.b.String()
	case distUniform:
		return "uniform:" + d.a.String() + ".." + d.b.String()
	case distExponential:
		return "exponential:" + d.a.String()
	}
	return d.a.String()
}

// Set implements pflag.Value.
func (d *Dist) Set(s string) error {
	v, err := ParseDist(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Type implements pflag.Value.
func (d *Dist) Type() string { return "delay" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Dist) UnmarshalYAML(n *yaml.Node) error { return setFromNode(n, d) }

// MarshalYAML implements yaml.Marshaler.
func (d Dist) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalText prints the distribution as it is written.
func (d Dist) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (d *Dist) UnmarshalText(b []byte) error { return d.Set(string(b)) }
