package diagnose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/internal/units"
	"gopkg.in/yaml.v3"
)

// Config holds the analyzer's thresholds and every rule's. They are
// relative where the article's reasoning is relative (a share of waiting,
// a growth across steps) and absolute only as a floor against noise.
// DefaultConfig gives the defaults (a rule's are in its row of the rules
// table); a YAML file overrides any of them (ParseConfig): the fields
// below, and each rule's under its code with '_' for '-'. The zero Config
// works: every threshold 0.
type Config struct {
	// Floor: no time below it is "high", whatever its share (default 20ms).
	Floor units.Duration `yaml:"floor"`
	// MinRequests: a step with fewer requests is not judged on its own.
	MinRequests int64 `yaml:"min_requests"`
	// Evidence: what counts as a figure the file cannot hold.
	Evidence EvidenceConfig `yaml:"evidence"`
	// Material: the least a cause of time must explain to be named.
	Material MaterialConfig `yaml:"materiality"`
	// ConnTails: when the connection rules leave a phase to a cause found
	// before them.
	ConnTails ConnTailsConfig `yaml:"connection_tails"`

	// rules holds each rule's thresholds, of its row's defaults type, at
	// its row's index (nil: none); thresholdsOf reads them.
	rules []any
}

// thresholdsOf returns the thresholds of type T in c: each rule's type is
// its own (TestRuleThresholds), so the type names the rule. A Config
// without them gives T's zero value, as a zero field did.
func thresholdsOf[T any](c *Config) T {
	for _, t := range c.rules {
		if v, ok := t.(T); ok {
			return v
		}
	}
	var zero T
	return zero
}

// EvidenceConfig: the sanity checks before any rule.
type EvidenceConfig struct {
	// ClockNoise and ClockNoiseShare: the server's time may exceed the
	// client's waiting by the larger of these (two clocks, rounding)
	// before the figure is set aside as not these requests'.
	ClockNoise      units.Duration `yaml:"clock_noise"`
	ClockNoiseShare Ratio          `yaml:"clock_noise_share"`
	// Served: a server that counted fewer than this share of the requests
	// k6 saw answered did not answer the others, whatever Server-Timing
	// they carried.
	Served Ratio `yaml:"served"`
	// Repeat: a Server-Timing whose p95 exceeds its median by at most this
	// share of its average repeats one stored figure.
	Repeat Ratio `yaml:"repeat"`
}

// MaterialConfig: a finding that names a cause of time must explain at
// least Min and at least Share of what a request costs the user (its
// duration and its connecting): a ratio between sub-millisecond times is
// no cause.
type MaterialConfig struct {
	Min   units.Duration `yaml:"min"`
	Share Ratio          `yaml:"share"`
}

// ConnTailsConfig: when the few slow connection phases of a run are
// another cause's.
type ConnTailsConfig struct {
	// Explained: a connection phase is explained when less than this
	// share of it is left unclaimed by the causes found before.
	Explained Ratio `yaml:"explained"`
	// HostStall: a few slow dials are the host's stall when the server's
	// own time has a tail (max − median) of this share of their peak.
	HostStall Ratio `yaml:"host_stall"`
}

// DefaultConfig returns the defaults: the analyzer's here, each rule's
// from its row.
func DefaultConfig() Config {
	c := Config{
		Floor:       millis(20),
		MinRequests: 20,
		Evidence:    EvidenceConfig{ClockNoise: millis(1), ClockNoiseShare: 0.05, Served: 0.5, Repeat: 0.001},
		Material:    MaterialConfig{Min: millis(1), Share: 0.05},
		ConnTails:   ConnTailsConfig{Explained: 0.5, HostStall: 0.25},
		rules:       make([]any, len(rules)),
	}
	for i := range rules {
		c.rules[i] = rules[i].defaults
	}
	return c
}

func millis(n int) units.Duration { return units.Duration(time.Duration(n) * time.Millisecond) }

// yamlKey is the key of a rule's thresholds in a config file.
func yamlKey(code string) string { return strings.ReplaceAll(code, "-", "_") }

// Ratio is a non-negative number in a YAML file (a share, a factor, a
// percentage).
type Ratio float64

// UnmarshalYAML implements yaml.Unmarshaler; errors name the line.
func (r *Ratio) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a number", n.Line)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(n.Value, "%"), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("line %d: %q: want a number ≥ 0", n.Line, n.Value)
	}
	*r = Ratio(v)
	return nil
}

// LoadConfig reads a YAML rules file over the defaults.
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("rules config: %w", err)
	}
	c, err := ParseConfig(b)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig reads YAML over the defaults: fields left out keep their
// default; unknown fields are refused with their line and the known ones
// (strictyaml).
func ParseConfig(b []byte) (Config, error) {
	c := DefaultConfig()
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil
		}
		return c, fmt.Errorf("rules config: %w", err)
	}
	if len(root.Content) == 0 {
		return c, nil
	}
	file, rows := c.file()
	if err := strictyaml.Decode(&root, file.Addr().Interface()); err != nil {
		return c, fmt.Errorf("rules config: %w", err)
	}
	c = file.Field(0).Interface().(Config)
	c.rules = make([]any, len(rules))
	for i, row := range rows {
		c.rules[row] = file.Field(i + 1).Interface()
	}
	return c, nil
}

// file returns c in the shape of a config file, for strictyaml, which
// reads a struct: the analyzer's fields inline, then a field per rule with
// thresholds under its key (the table's rows, in that order). The rules'
// fields are the table's, so the struct is built from it.
func (c *Config) file() (reflect.Value, []int) {
	fields := []reflect.StructField{{Name: "Analyzer", Type: reflect.TypeFor[Config](), Tag: `yaml:",inline"`}}
	var rows []int
	for i, t := range c.rules {
		if t != nil {
			fields = append(fields, reflect.StructField{Name: "Rule" + strconv.Itoa(i), Type: reflect.TypeOf(t),
				Tag: reflect.StructTag(`yaml:"` + yamlKey(rules[i].code) + `"`)})
			rows = append(rows, i)
		}
	}
	v := reflect.New(reflect.StructOf(fields)).Elem()
	v.Field(0).Set(reflect.ValueOf(*c))
	for i, row := range rows {
		v.Field(i + 1).Set(reflect.ValueOf(c.rules[row]))
	}
	return v, rows
}
