package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Size is a number of bytes: "256KiB", "8MB", "1.5 MiB", "4096".
// KB, MB, GB are powers of 1000 and KiB, MiB, GiB powers of 1024, as the
// IEC says; a bare "K" or "M" is refused because tools disagree on it.
type Size int64

// Common sizes.
const (
	Byte Size = 1
	KB   Size = 1000
	MB        = 1000 * KB
	GB        = 1000 * MB
	KiB  Size = 1024
	MiB       = 1024 * KiB
	GiB       = 1024 * MiB
)

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30,
}

// bitUnits are the line-rate units; a bit is an eighth of a byte.
var bitUnits = map[string]float64{
	"bit": 1.0 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8,
	"bps": 1.0 / 8, "kbps": 1e3 / 8, "mbps": 1e6 / 8, "gbps": 1e9 / 8,
}

// ParseSize parses a non-negative byte size.
func ParseSize(s string) (Size, error) {
	f, err := parseAmount(s, sizeUnits, false)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	return Size(math.Round(f)), nil
}

// parseAmount splits "1.5 MiB" into number and unit and scales it. Bit units
// are accepted only where allowBits (rates: "1Gbit/s").
func parseAmount(s string, table map[string]float64, allowBits bool) (float64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '-' || t[i] == '+' || t[i] == 'e' && i > 0 && i+1 < len(t) && (t[i+1] >= '0' && t[i+1] <= '9')) {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" {
		return 0, fmt.Errorf("want a number followed by a unit such as KiB or MB")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number", num)
	}
	if f < 0 {
		return 0, fmt.Errorf("must not be negative")
	}
	scale, ok := table[unit]
	if !ok && allowBits {
		scale, ok = bitUnits[unit]
	}
	if !ok {
		if unit == "k" || unit == "m" || unit == "g" {
			return 0, fmt.Errorf("unit %q is ambiguous: say %sB (powers of 1000) or %siB (powers of 1024)", t[i:], strings.ToUpper(unit), strings.ToUpper(unit))
		}
		return 0, fmt.Errorf("unknown unit %q: use B, KB, MB, GB, KiB, MiB or GiB", strings.TrimSpace(t[i:]))
	}
	v := f * scale
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("too large")
	}
	return v, nil
}

// Bytes returns the size as an int64.
func (s Size) Bytes() int64 { return int64(s) }

// String prints the largest binary unit that divides the size exactly, so
// that String and ParseSize round-trip.
func (s Size) String() string {
	for _, u := range []struct {
		n    Size
		name string
	}{{GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}, {GB, "GB"}, {MB, "MB"}, {KB, "KB"}} {
		if s != 0 && s%u.n == 0 {
			return strconv.FormatInt(int64(s/u.n), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// Set implements pflag.Value.
func (s *Size) Set(v string) error {
	p, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// Type implements pflag.Value.
// IsZero reports whether no size was given.
func (s Size) IsZero() bool { return s == 0 }

func (s *Size) Type() string { return "size" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (s *Size) UnmarshalYAML(n *yaml.Node) error { return setFromNode(n, s) }

// MarshalYAML implements yaml.Marshaler.
func (s Size) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalText prints the size as it is written.
func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (s *Size) UnmarshalText(b []byte) error { return s.Set(string(b)) }
