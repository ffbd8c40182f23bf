package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/middlebench/middlebench/internal/strictyaml"
)

// LoadConfig reads a YAML scenario file strictly (see DecodeConfig).
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	c, _, err := decodeConfig(bytes.NewReader(b), false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// LoadOptions reads an options file as k6 reads a script's exported
// options: a top-level key that names no option is ignored with a warning
// (k6 v1.8.1: "There were unknown fields in the options exported in the
// script"), returned one per key; the rest is as strict as LoadConfig.
func LoadOptions(path string) (*Config, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read scenario: %w", err)
	}
	c, warnings, err := decodeConfig(bytes.NewReader(b), true)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, w := range warnings {
		warnings[i] = path + ": " + w
	}
	return c, warnings, nil
}

// DecodeConfig decodes one YAML or JSON document (JSON is YAML: a k6
// script's exported options, or what `k6 inspect` prints, decode as they
// are; null means unset, as in k6) into a Config, strictly (package
// strictyaml): an unknown field, a wrong type or a bad value is an error
// that names the line and the field path ("line 9: stages[1].duration:
// …"); a second document in the stream is refused. A harness embedding a
// Config in its own spec can decode it with strictyaml.Decode the same way.
func DecodeConfig(r io.Reader) (*Config, error) {
	c, _, err := decodeConfig(r, false)
	return c, err
}

// decodeConfig is DecodeConfig; with lenient, unknown top-level keys are
// dropped and returned as warnings instead of refused.
func decodeConfig(r io.Reader, lenient bool) (*Config, []string, error) {
	dec := yaml.NewDecoder(r)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%w: the scenario is empty", ErrConfig)
		}
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	top := resolveDoc(&doc)
	if err := stripK6Only(top, true); err != nil {
		return nil, nil, err
	}
	var warnings []string
	if lenient {
		warnings = dropUnknownKeys(top)
	}
	var c Config
	if err := strictyaml.Decode(&doc, &c); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		return nil, nil, fmt.Errorf("%w: line %d: one scenario per file, found a second YAML document", ErrConfig, line)
	}
	return &c, warnings, nil
}

// dropUnknownKeys removes the keys of mapping n that name no option and
// says which, with their lines.
func dropUnknownKeys(n *yaml.Node) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	known := strictyaml.Keys(&Config{})
	var kept []*yaml.Node
	var warnings []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(known, k.Value) {
			warnings = append(warnings, fmt.Sprintf("line %d: %s: unknown option, ignored (as k6 ignores unknown fields in a script's options, with a warning)", k.Line, k.Value))
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
	return warnings
}

func resolveDoc(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return n
}

// decodeStrict is strictyaml.Decode for a type's own UnmarshalYAML.
func decodeStrict(n *yaml.Node, v any) error { return strictyaml.Decode(n, v) }
