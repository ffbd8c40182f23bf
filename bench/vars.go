package bench

import (
	"bytes"
	"fmt"
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
	var head struct {
		Vars  map[string]string `yaml:"vars"`
		Quick map[string]string `yaml:"quick"`
	}
	if err := yaml.Unmarshal(src, &head); err != nil {
		return nil, fmt.Errorf("vars: %w", err)
	}
	vars := head.Vars
	if vars == nil {
		vars = map[string]string{}
	}
	for k := range head.Quick {
		if _, ok := vars[k]; !ok {
			return nil, fmt.Errorf("quick: %q is not in vars (quick overrides vars only)", k)
		}
	}
	if quick {
		for k, v := range head.Quick {
			vars[k] = v
		}
	}
	lines := bytes.Split(src, []byte("\n"))
	var errs []string
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
				errs = append(errs, fmt.Sprintf("line %d: ${%s} is not defined in vars (defined: %s)", i+1, name, strings.Join(sortedKeys(vars), ", ")))
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
