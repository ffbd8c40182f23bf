package units

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a non-negative time.Duration written in Go syntax ("450ms",
// "1m30s"). A bare "0" is accepted; other bare numbers are refused because
// their unit would be a guess.
type Duration time.Duration

// ParseDuration parses a non-negative Go duration.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want Go syntax such as 450ms, 2s or 1m30s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q: must not be negative", s)
	}
	return Duration(d), nil
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// IsZero reports whether no duration was given.
func (d Duration) IsZero() bool { return d == 0 }

// Set implements pflag.Value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Type implements pflag.Value.
func (d *Duration) Type() string { return "duration" }

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error { return setFromNode(n, d) }

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalText lets JSON and YAML encoders print the Go syntax.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (d *Duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }

// setter is what every type of this package is for flags.
type setter interface{ Set(string) error }

// setFromNode decodes a YAML scalar through the type's Set, so files and
// flags accept exactly the same text; the error names the line.
func setFromNode(n *yaml.Node, v setter) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a single value, found a %s", n.Line, kindName(n.Kind))
	}
	if err := v.Set(n.Value); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	return nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "scalar"
}
