package proxy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/internal/strictyaml"
	"gopkg.in/yaml.v3"
)

// ParseStage reads the command line's one-stage shorthand,
// "kind:field=value,field=value", into a StageConfig, with the same checks
// as YAML:
//
//	waf:delay=450ms
//	ratelimit:rate=100/s,window=1s
//	waf:delay=normal:50ms,5ms        (a value may contain commas)
//	uablock:patterns=[curl/,^Grafana k6/]
//	uablock:patterns=curl/,^Grafana k6/  (a list field takes bare items)
//
// A piece that does not start with a field name of the kind continues the
// previous value (lognormal:p50=40ms,p99=200ms); a value starting with
// [ or { is read as a YAML flow list or mapping, and a list field's bare
// value is split on the commas outside brackets and braces.
func ParseStage(s string) (StageConfig, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	n := &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}
	n.Content = append(n.Content, scalar("kind"), scalar(kind))
	spec, err := newSpec(kind)
	if err != nil {
		return StageConfig{}, fmt.Errorf("stage %q: %w", s, err)
	}
	valid := map[string]bool{}
	for _, k := range strictyaml.Keys(spec) {
		valid[k] = true
	}
	var keys []string
	vals := map[string]string{}
	for _, piece := range splitTop(rest) {
		k, v, ok := strings.Cut(piece, "=")
		// Only a distribution's parameters (lognormal:p50=…,p99=…) continue
		// a value with "name=": anything else unknown is reported as such.
		cont := !ok || (len(keys) > 0 && !valid[strings.TrimSpace(k)] && strings.Contains(vals[keys[len(keys)-1]], ":"))
		if cont {
			if len(keys) == 0 {
				return StageConfig{}, fmt.Errorf("stage %q: want kind:field=value,field=value (e.g. waf:delay=450ms)", s)
			}
			last := keys[len(keys)-1]
			vals[last] += "," + piece
			continue
		}
		k = strings.TrimSpace(k)
		if _, dup := vals[k]; dup {
			return StageConfig{}, fmt.Errorf("stage %q: %s given twice", s, k)
		}
		keys = append(keys, k)
		vals[k] = v
	}
	for _, k := range keys {
		v := strings.TrimSpace(vals[k])
		vn := scalar(v)
		switch {
		case strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{"):
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(v), &doc); err != nil || len(doc.Content) != 1 {
				return StageConfig{}, fmt.Errorf("stage %q: %s: %q is not a YAML flow list or mapping", s, k, v)
			}
			vn = doc.Content[0]
		case strictyaml.IsList(spec, k):
			// A list field takes bare items too: patterns=curl/,^Wget/
			vn = &yaml.Node{Kind: yaml.SequenceNode, Line: 1, Column: 1}
			for _, item := range splitTop(v) {
				vn.Content = append(vn.Content, scalar(strings.TrimSpace(item)))
			}
		}
		n.Content = append(n.Content, scalar(k), vn)
	}
	var sc StageConfig
	if err := sc.UnmarshalYAML(n); err != nil {
		var se *strictyaml.Error
		if errors.As(err, &se) {
			if se.Field != "" {
				return StageConfig{}, fmt.Errorf("stage %q: %s: %s", s, se.Field, se.Msg)
			}
			return StageConfig{}, fmt.Errorf("stage %q: %s", s, se.Msg)
		}
		return StageConfig{}, fmt.Errorf("stage %q: %w", s, err)
	}
	return sc, nil
}

func scalar(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Line: 1, Column: 1}
}

// splitTop splits on commas that are not inside [ ] or { }.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
