package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ByteRate is bytes per second: "8MiB/s", "10240KiB/s", "1Gbit/s".
type ByteRate float64

// ParseByteRate parses a non-negative byte rate. The "/s" is required so a
// rate is never mistaken for a size.
func ParseByteRate(s string) (ByteRate, error) {
	t := strings.TrimSpace(s)
	body, ok := strings.CutSuffix(t, "/s")
	if !ok && strings.HasSuffix(strings.ToLower(t), "bps") {
		body, ok = t, true // "100Mbps": the unit itself says per second
	}
	if !ok {
		return 0, fmt.Errorf("byte rate %q: want a size per second such as 8MiB/s or 1Gbit/s", s)
	}
	f, err := parseAmount(body, sizeUnits, true)
	if err != nil {
		return 0, fmt.Errorf("byte rate %q: %w", s, err)
	}
	return ByteRate(f), nil
}

// BytesPerSecond returns the rate as a float.
func (r ByteRate) BytesPerSecond() float64 { return float64(r) }

func (r ByteRate) String() string {
	if r == ByteRate(math.Trunc(float64(r))) {
		return Size(r).String() + "/s"
	}
	return strconv.FormatFloat(float64(r), 'f', -1, 64) + "B/s"
}

// Set implements pflag.Value.
func (r *ByteRate) Set(v string) error {
	p, err := ParseByteRate(v)
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// Type implements pflag.Value.
// IsZero reports whether no byte rate was given.
func (r ByteRate) IsZero() bool { return r == 0 }

func (r *ByteRate) Type() string { return "byterate" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (r *ByteRate) UnmarshalYAML(n *yaml.Node) error { return setFromNode(n, r) }

// MarshalYAML implements yaml.Marshaler.
func (r ByteRate) MarshalYAML() (any, error) { return r.String(), nil }

// Rate is a number of events per period: "100/s", "6000/m", "5/100ms".
// It keeps both parts, as k6's rate and timeUnit do, so "1/10s" stays exact.
type Rate struct {
	N   float64
	Per time.Duration
}

// ParseRate parses "N/unit" where unit is s, m, h or any Go duration.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	num, per, ok := strings.Cut(t, "/")
	if !ok {
		return Rate{}, fmt.Errorf("rate %q: want events per period such as 100/s, 6000/m or 5/100ms", s)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return Rate{}, fmt.Errorf("rate %q: %q is not a number", s, num)
	}
	if n < 0 {
		return Rate{}, fmt.Errorf("rate %q: must not be negative", s)
	}
	per = strings.TrimSpace(per)
	var d time.Duration
	switch per {
	case "s", "sec":
		d = time.Second
	case "m", "min":
		d = time.Minute
	case "h":
		d = time.Hour
	case "ms":
		d = time.Millisecond
	default:
		d, err = time.ParseDuration(per)
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("rate %q: period %q: want s, m, h or a positive Go duration", s, per)
		}
	}
	return Rate{N: n, Per: d}, nil
}

// PerSecond returns the rate in events per second (0 for the zero Rate).
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return r.N / r.Per.Seconds()
}

// IsZero reports whether no rate was given.
func (r Rate) IsZero() bool { return r.N == 0 || r.Per == 0 }

func (r Rate) String() string {
	if r.Per == 0 {
		return "0/s"
	}
	n := strconv.FormatFloat(r.N, 'f', -1, 64)
	switch r.Per {
	case time.Second:
		return n + "/s"
	case time.Minute:
		return n + "/m"
	case time.Hour:
		return n + "/h"
	}
	return n + "/" + r.Per.String()
}

// Set implements pflag.Value.
func (r *Rate) Set(v string) error {
	p, err := ParseRate(v)
	if err != nil {
		return err
	}
	*r = p
	return nil
}

// Type implements pflag.Value.
func (r *Rate) Type() string { return "rate" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error { return setFromNode(n, r) }

// MarshalYAML implements yaml.Marshaler.
func (r Rate) MarshalYAML() (any, error) { return r.String(), nil }

// MarshalText prints the rate as it is written.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (r *Rate) UnmarshalText(b []byte) error { return r.Set(string(b)) }

// MarshalText prints the rate as it is written.
func (r ByteRate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (r *ByteRate) UnmarshalText(b []byte) error { return r.Set(string(b)) }
