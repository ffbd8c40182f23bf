package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"gopkg.in/yaml.v3"
)

// ParseShorthand reads the command line's form of a wire, the same fields
// as the YAML's with the stage shorthand's commas:
//
//	latency=75ms,rate=100Mbit/s,queue=256KiB,loss=0.1%
//	latency=20ms,jitter=2ms,seed=7
//	latency=10ms,down.rate=10Mbit/s,down.queue=1MiB   (one direction's own value)
//
// up.FIELD and down.FIELD override one direction, as up: and down: do in
// YAML; the checks are the YAML's, and an error names the field.
func ParseShorthand(s string) (Config, error) {
	root := mapping()
	dirs := map[string]*yaml.Node{}
	seen := map[string]bool{}
	for _, piece := range strings.Split(s, ",") {
		piece = strings.TrimSpace(piece)
		if piece == "" {
			continue
		}
		k, v, ok := strings.Cut(piece, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return Config{}, fmt.Errorf("wire %q: %q: want field=value (e.g. latency=75ms)", s, piece)
		}
		if seen[k] {
			return Config{}, fmt.Errorf("wire %q: %s given twice", s, k)
		}
		seen[k] = true
		into := root
		if dir, field, nested := strings.Cut(k, "."); nested {
			if dir != "up" && dir != "down" {
				return Config{}, fmt.Errorf("wire %q: %s: a direction is up or down", s, k)
			}
			if dirs[dir] == nil {
				dirs[dir] = mapping()
				root.Content = append(root.Content, scalar(dir), dirs[dir])
			}
			into, k = dirs[dir], field
		}
		into.Content = append(into.Content, scalar(k), scalar(strings.TrimSpace(v)))
	}
	if len(root.Content) == 0 {
		return Config{}, fmt.Errorf("wire %q: want field=value,… (e.g. latency=75ms,rate=100Mbit/s)", s)
	}
	var c Config
	if err := c.UnmarshalYAML(root); err != nil {
		var se *strictyaml.Error
		if errors.As(err, &se) {
			if se.Field != "" {
				return Config{}, fmt.Errorf("wire %q: %s: %s", s, se.Field, se.Msg)
			}
			return Config{}, fmt.Errorf("wire %q: %s", s, strings.TrimPrefix(se.Msg, "wire: "))
		}
		return Config{}, fmt.Errorf("wire %q: %w", s, err)
	}
	return c, nil
}

// ShorthandHelp lists the shorthand's fields, for --help.
const ShorthandHelp = `latency (one way), jitter (uniform ±, order kept), rate (bits/s, e.g. 100Mbit/s),
queue (drop-tail in front of the rate: 256KiB or 100 packets; default 1000 packets),
loss (e.g. 0.1%), seed, mtu; up.FIELD or down.FIELD for one direction only;
noLatencyHold=true (idle CPUs may halt while packets flow), noReplyRead=true,
busyPoll=true (a thread spins at idle priority while packets flow)`

// Flag is a --wire flag: a pflag.Value whose Config is nil until set.
type Flag struct{ Config *Config }

// Set implements pflag.Value.
func (f *Flag) Set(s string) error {
	c, err := ParseShorthand(s)
	if err != nil {
		return err
	}
	f.Config = &c
	return nil
}

// String implements pflag.Value.
func (f *Flag) String() string {
	if f.Config == nil {
		return ""
	}
	return f.Config.String()
}

// Type implements pflag.Value.
func (*Flag) Type() string { return "wire" }

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1} }

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: 1, Column: 1}
}
