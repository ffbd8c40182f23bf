package experiment

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_.]*)\}`)

// expandVars replaces ${name} in an experiment file with the value of
// name from its top-level vars (or, with quick, from its quick block
// first), so that the path, the load and the bands are all written in
// terms of what the experiment configures. The vars blocks themselves are
// left alone; an undefined name is an error with its line.
func expandVars(src []byte, quick bool) ([]byte, error) {
	vars, over, err := readVarBlocks(src)
	if err != nil {
		return nil, err
	}
	for k := range over {
		if _, ok := vars[k]; !ok {
			return nil, fmt.Errorf("quick: %q is not in vars (quick overrides vars only)", k)
		}
	}
	if quick {
		for k, v := range over {
			vars[k] = v
		}
	}
	lines := bytes.Split(src, []byte("\n"))
	var errs []string
	var defined string
	inBlock := false
	for i, line := range lines {
		// The vars/quick blocks: top-level key and its indented lines.
		if len(line) > 0 && line[0] != ' ' && line[0] != '#' {
			inBlock = bytes.HasPrefix(line, []byte("vars:")) || bytes.HasPrefix(line, []byte("quick:"))
		}
		if inBlock {
			continue
		}
		lines[i] = varRef.ReplaceAllFunc(line, func(m []byte) []byte {
			name := string(varRef.FindSubmatch(m)[1])
			v, ok := vars[name]
			if !ok {
				if defined == "" {
					defined = strings.Join(slices.Sorted(maps.Keys(vars)), ", ") // once: it may be long
				}
				errs = append(errs, fmt.Sprintf("line %d: ${%s} is not defined in vars (defined: %s)", i+1, name, defined))
				return m
			}
			return []byte(v)
		})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return bytes.Join(lines, []byte("\n")), nil
}

// readVarBlocks reads the top-level vars and quick blocks. It walks the
// document's nodes rather than decoding into maps: yaml.v3 checks a
// mapping's keys for duplicates pair by pair, which made 100k vars take 49 s.
func readVarBlocks(src []byte) (vars, quick map[string]string, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, nil, fmt.Errorf("vars: %w", err)
	}
	vars = map[string]string{}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return vars, nil, nil
	}
	top := doc.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch key := top.Content[i].Value; key {
		case "vars":
			err = readVarBlock(key, top.Content[i+1], vars)
		case "quick":
			quick = map[string]string{}
			err = readVarBlock(key, top.Content[i+1], quick)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return vars, quick, nil
}

// readVarBlock reads one block of name: value scalars into m.
func readVarBlock(block string, n *yaml.Node, into map[string]string) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("vars: line %d: %s must be a mapping of names to values", n.Line, block)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode {
			return fmt.Errorf("vars: line %d: %s.%s must be a name and a plain value", k.Line, block, k.Value)
		}
		if _, dup := into[k.Value]; dup {
			return fmt.Errorf("vars: line %d: %s.%s is defined twice", k.Line, block, k.Value)
		}
		into[k.Value] = v.Value
	}
	return nil
}
