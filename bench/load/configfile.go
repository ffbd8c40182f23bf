package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
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

// DecodeConfig decodes one YAML document into a Config. Unknown fields,
// wrong types and bad values are errors that name the line; a second
// document in the stream is refused.
func DecodeConfig(r io.Reader) (*Config, error) {
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the scenario is empty", ErrConfig)
		}
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		return nil, fmt.Errorf("%w: line %d: one scenario per file, found a second YAML document", ErrConfig, line)
	}
	return &c, nil
}
