package proxy

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/internal/loopback"
	"github.com/middlebench/middlebench/internal/strictyaml"
	"github.com/middlebench/middlebench/wire"
	"gopkg.in/yaml.v3"
)

// PathConfig describes a path: boxes in order from the client to the
// upstream. It decodes strictly from YAML and can be embedded in another
// strict config (the harness's experiment files):
//
//	seed: 42
//	admin: 127.0.0.1:9090      # optional: JSON, Prometheus and the ledger for all boxes
//	ledgerHeader: false         # true: each box appends its Server-Timing entries
//	ledgerFile: ledger.jsonl    # optional: every ledger entry as JSON lines, in place at Close
//	boxes:
//	  - name: waf
//	    listen: 127.0.0.1:8081  # default 127.0.0.1:0
//	    stages:
//	      - kind: waf
//	        delay: 450ms
type PathConfig struct {
	Seed         uint64      `yaml:"seed"`
	Admin        string      `yaml:"admin"`
	LedgerHeader bool        `yaml:"ledgerHeader"`
	LedgerFile   string      `yaml:"ledgerFile"`
	LedgerLimit  int         `yaml:"ledgerLimit"` // entries kept in memory per box (default 100,000)
	Boxes        []BoxConfig `yaml:"boxes"`
	// Wire, if set, is a packet-level link in front of the first box
	// (package wire: network namespaces, root and /dev/net/tun).
	Wire *wire.Config `yaml:"wire"`
	// AllowRemote lets boxes and admin endpoints listen beyond loopback
	// (every interface, a LAN IP); without it such an address is refused.
	AllowRemote bool `yaml:"allowRemote"`

	// Log receives one-line notices (box summaries at shutdown, serve
	// errors); nil discards them.
	Log io.Writer `yaml:"-"`
	// OwnProcess: the path is its process's only work (the proxy
	// command), not a part of one that also generates load or serves (the
	// harness). Its boxes' event loops may then block in epoll_wait,
	// cheaper when busy, where they otherwise wait in Go's poller, which
	// leaves the process's other goroutines every P (epoll.Set.Wait).
	OwnProcess bool `yaml:"-"`
}

// BoxConfig is one box: a listener, stages in path order (the first is the
// nearest the client), a forwarder to the next hop.
type BoxConfig struct {
	Name   string        `yaml:"name"`
	Listen string        `yaml:"listen"`
	Admin  string        `yaml:"admin"` // optional: this box's own admin endpoint
	Stages []StageConfig `yaml:"stages"`
	// MaxIdleConnsPerHost sizes the keep-alive pool to the next hop of a
	// box that parses HTTP (default 1024: one per client connection for
	// the loads middlebench runs).
	MaxIdleConnsPerHost int `yaml:"maxIdleConnsPerHost"`
	// BoxLimits bound slow clients and a slow next hop (limits.go).
	BoxLimits `yaml:",inline"`
	// noLoop: every connection on the lean loop, none on the HTTP loop
	// (the tests' way to compare the two).
	noLoop bool
}

// StageConfig is one stage: its kind and its typed configuration.
type StageConfig struct {
	Kind string
	Spec StageSpec
}

// UnmarshalYAML decodes a path strictly. The fields are PathConfig's own
// (a defined type without methods, so that decoding does not recurse):
// a field added to PathConfig is decoded with no second list to update.
func (p *PathConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain PathConfig
	v := plain{Log: p.Log}
	if err := strictyaml.Decode(n, &v); err != nil {
		return inItem(err, "boxes", n, func(i int, item *yaml.Node) string {
			if name := scalarAt(item, "name"); name != "" {
				return fmt.Sprintf("box %q", name)
			}
			return fmt.Sprintf("box %d", i+1)
		})
	}
	out := PathConfig(v)
	if err := out.validate(); err != nil {
		return &strictyaml.Error{Line: n.Line, Msg: err.Error()}
	}
	*p = out
	return nil
}

// UnmarshalYAML decodes one box strictly and checks it; its errors are
// about the box (the path puts "box N" in front).
func (b *BoxConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain BoxConfig
	var v plain
	if err := strictyaml.Decode(n, &v); err != nil {
		return inItem(err, "stages", n, func(i int, item *yaml.Node) string {
			if kind := scalarAt(item, "kind"); kind != "" {
				return fmt.Sprintf("stage %d (%s)", i+1, kind)
			}
			return fmt.Sprintf("stage %d", i+1)
		})
	}
	out := BoxConfig(v)
	if err := out.validate(); err != nil {
		line := n.Line
		var fe *fieldError
		if errors.As(err, &fe) {
			line = lineOf(n, fe.field)
		}
		return &strictyaml.Error{Line: line, Msg: err.Error()}
	}
	*b = out
	return nil
}

// UnmarshalYAML reads the kind and decodes the rest strictly into the
// kind's spec, then validates it; errors name the field and its line.
func (s *StageConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &strictyaml.Error{Line: n.Line, Msg: "a stage is a mapping with a kind: " + strings.Join(Kinds(), ", ")}
	}
	rest := *n
	rest.Content = nil
	kind, kindLine := "", 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "kind" {
			kind, kindLine = n.Content[i+1].Value, n.Content[i+1].Line
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	if kind == "" {
		return &strictyaml.Error{Line: n.Line, Field: "kind", Msg: "missing; valid kinds: " + strings.Join(Kinds(), ", ")}
	}
	spec, err := newSpec(kind)
	if err != nil {
		return &strictyaml.Error{Line: kindLine, Field: "kind", Msg: err.Error()}
	}
	if err := strictyaml.Decode(&rest, spec); err != nil {
		return err
	}
	if _, err := spec.compile(); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			return &strictyaml.Error{Line: lineOf(n, fe.field), Field: fe.field, Msg: fe.msg}
		}
		return &strictyaml.Error{Line: n.Line, Msg: err.Error()}
	}
	s.Kind, s.Spec = kind, spec
	return nil
}

// MarshalYAML writes the stage back as kind + fields.
func (s StageConfig) MarshalYAML() (any, error) {
	var n yaml.Node
	if err := n.Encode(s.Spec); err != nil {
		return nil, fmt.Errorf("stage %s: %w", s.Kind, err)
	}
	kind := []*yaml.Node{{Kind: yaml.ScalarNode, Value: "kind"}, {Kind: yaml.ScalarNode, Value: s.Kind}}
	n.Content = append(kind, n.Content...)
	return &n, nil
}

// inItem words a decoding error inside item i of the list under key of
// mapping n ("boxes[1].stages[0].delay") the way people count: name(i,
// item) — "box 2" — then the rest of the field and the message.
func inItem(err error, key string, n *yaml.Node, name func(i int, item *yaml.Node) string) error {
	var se *strictyaml.Error
	if !errors.As(err, &se) {
		return err
	}
	rest, ok := strings.CutPrefix(se.Field, key+"[")
	if !ok {
		return err
	}
	idx, rest, _ := strings.Cut(rest, "]")
	i, cerr := strconv.Atoi(idx)
	list := valueAt(n, key)
	if cerr != nil || list == nil || i < 0 || i >= len(list.Content) {
		return err
	}
	msg := se.Msg
	if rest = strings.TrimPrefix(rest, "."); rest != "" {
		msg = rest + ": " + msg
	}
	return &strictyaml.Error{Line: se.Line, Msg: name(i, list.Content[i]) + ", " + msg}
}

// valueAt returns the value of key in mapping n (nil if absent).
func valueAt(n *yaml.Node, key string) *yaml.Node {
	for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// scalarAt returns the scalar value of key in mapping n ("" if absent).
func scalarAt(n *yaml.Node, key string) string {
	if v := valueAt(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// lineOf returns the line of key's value in mapping n, or n's own line.
func lineOf(n *yaml.Node, key string) int {
	key, _, _ = strings.Cut(key, "[")
	key, _, _ = strings.Cut(key, ".")
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1].Line
		}
	}
	return n.Line
}

// validate checks the box's fields and compiles its stages (dropping them)
// to check them and their order.
func (b *BoxConfig) validate() error {
	if err := loopback.CheckListen(b.Listen, true); err != nil { // the form; the place is checked at start
		return errField("listen", "%v", err)
	}
	if err := loopback.CheckListen(b.Admin, true); err != nil {
		return errField("admin", "%v", err)
	}
	if b.MaxIdleConnsPerHost < 0 {
		return errField("maxIdleConnsPerHost", "must not be negative")
	}
	if err := b.BoxLimits.validate(); err != nil {
		return err
	}
	_, err := compileStages(b.Stages)
	return err
}

func (p *PathConfig) validate() error {
	if len(p.Boxes) == 0 {
		return fmt.Errorf("boxes: a path needs at least one box")
	}
	if err := loopback.CheckListen(p.Admin, true); err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	if p.LedgerLimit < 0 {
		return fmt.Errorf("ledgerLimit: must not be negative")
	}
	names := map[string]int{}
	for i := range p.Boxes {
		name := p.Boxes[i].displayName(i)
		if prev, dup := names[name]; dup {
			return fmt.Errorf("boxes: box %d and box %d are both named %q", prev, i+1, name)
		}
		names[name] = i + 1
	}
	return nil
}

func (b *BoxConfig) displayName(i int) string {
	if b.Name != "" {
		return b.Name
	}
	return fmt.Sprintf("box%d", i+1)
}

// checkListens refuses, unless AllowRemote, any box or admin address
// beyond loopback: boxes are test devices that answer anyone.
func (p *PathConfig) checkListens() error {
	if err := loopback.CheckListen(p.Admin, p.AllowRemote); err != nil {
		return fmt.Errorf("admin: %w", err)
	}
	for i := range p.Boxes {
		b := &p.Boxes[i]
		if err := loopback.CheckListen(b.Listen, p.AllowRemote); err != nil {
			return fmt.Errorf("box %q: listen: %w", b.displayName(i), err)
		}
		if err := loopback.CheckListen(b.Admin, p.AllowRemote); err != nil {
			return fmt.Errorf("box %q: admin: %w", b.displayName(i), err)
		}
	}
	return nil
}
