package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/middlebench/middlebench/internal/strictyaml"
)

// LoadConfig reads a YAML scenario file strictly (see DecodeConfig).
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	c, err := DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// DecodeConfig decodes one YAML or JSON document (JSON is YAML: a k6
// script's exported options, or what `k6 inspect` prints, decode as they
// are; null means unset, as in k6) into a Config, strictly (package
// strictyaml): an unknown field, a wrong type or a bad value is an error
// that names the line and the field path ("line 9: stages[1].duration:
// …"); a second document in the stream is refused. A harness embedding a
// Config in its own spec can decode it with strictyaml.Decode the same way.
func DecodeConfig(r io.Reader) (*Config, error) {
	dec := yaml.NewDecoder(r)
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the scenario is empty", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := stripK6Only(resolveDoc(&doc), true); err != nil {
		return nil, err
	}
	var c Config
	if err := strictyaml.Decode(&doc, &c); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		return nil, fmt.Errorf("%w: line %d: one scenario per file, found a second YAML document", ErrConfig, line)
	}
	return &c, nil
}

func resolveDoc(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return n.Content[0]
	}
	return n
}

// decodeStrict is strictyaml.Decode for a type's own UnmarshalYAML.
func decodeStrict(n *yaml.Node, v any) error { return strictyaml.Decode(n, v) }
