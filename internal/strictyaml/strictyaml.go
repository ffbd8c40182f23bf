// Package strictyaml decodes a YAML node into a Go struct the strict way:
// a key that names no field is an error that gives its line and lists the
// valid keys, and every error names the field path and the line. Types with
// their own UnmarshalYAML (units.Duration, proxy.PathConfig, …) decode
// themselves, so a strict config can embed another one.
//
// yaml.v3 offers KnownFields only on a Decoder over a whole document; this
// package gives the same strictness to a node, which is what a type's
// UnmarshalYAML receives.
package strictyaml

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a decoding error at a place in the document.
type Error struct {
	Line  int    // 1-based line of the offending node
	Field string // dotted path from the node given to Decode: "boxes[1].stages[0].delay"
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Msg)
}

// Decode decodes node (a document or a mapping) into v, a non-nil pointer
// to a struct. Keys are matched to fields by their yaml tag, or by the
// lower-cased field name as yaml.v3 does; ",inline" structs are flattened.
func Decode(node *yaml.Node, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("strictyaml: Decode needs a non-nil pointer to a struct, got %T", v)
	}
	return decodeStruct(resolve(node), rv.Elem(), "")
}

// Keys returns the YAML keys a struct accepts, sorted, for messages.
func Keys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fields := map[string][]int{}
	collect(t, nil, fields)
	return slices.Sorted(maps.Keys(fields))
}

// IsList says whether the struct v takes a list (a slice other than bytes)
// under the YAML key.
func IsList(v any, key string) bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fields := map[string][]int{}
	collect(t, nil, fields)
	idx, ok := fields[key]
	if !ok {
		return false
	}
	f := t.FieldByIndex(idx).Type
	return f.Kind() == reflect.Slice && f.Elem().Kind() != reflect.Uint8
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		default:
			return n
		}
	}
	return &yaml.Node{Kind: yaml.MappingNode}
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func decodeStruct(n *yaml.Node, v reflect.Value, path string) error {
	fields := map[string][]int{}
	collect(v.Type(), nil, fields)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &Error{Line: n.Line, Field: path, Msg: fmt.Sprintf("want a mapping with keys %s, found %s", strings.Join(slices.Sorted(maps.Keys(fields)), ", "), describe(n))}
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &Error{Line: k.Line, Field: path, Msg: "a key must be a plain name, found " + describe(k)}
		}
		if k.Value == "<<" {
			return &Error{Line: k.Line, Field: path, Msg: "merge keys (<<) are not supported: write the fields out"}
		}
		fp := join(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			return &Error{Line: k.Line, Field: fp, Msg: fmt.Sprintf("given twice (first on line %d)", line)}
		}
		seen[k.Value] = k.Line
		idx, ok := fields[k.Value]
		if !ok {
			msg := "unknown field; valid fields: " + strings.Join(slices.Sorted(maps.Keys(fields)), ", ")
			if s := suggest(k.Value, fields); s != "" {
				msg = fmt.Sprintf("unknown field (did you mean %q?); valid fields: %s", s, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
			}
			return &Error{Line: k.Line, Field: fp, Msg: msg}
		}
		if err := decodeValue(resolve(val), fieldByIndex(v, idx), fp); err != nil {
			return err
		}
	}
	return nil
}

var nodeType = reflect.TypeFor[yaml.Node]()

func decodeValue(n *yaml.Node, v reflect.Value, path string) error {
	if v.Type() == nodeType {
		v.Set(reflect.ValueOf(*n)) // kept for the caller to decode later
		return nil
	}
	if v.CanAddr() && v.Addr().Type().Implements(unmarshalerType) {
		return wrap(n, path, n.Decode(v.Addr().Interface()))
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(n) {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decodeValue(n, v.Elem(), path)
	case reflect.Struct:
		return decodeStruct(n, v, path)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			break
		}
		if isNull(n) {
			v.SetZero()
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return &Error{Line: n.Line, Field: path, Msg: "want a list, found " + describe(n)}
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if err := decodeValue(resolve(item), s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			break
		}
		if isNull(n) {
			v.SetZero()
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return &Error{Line: n.Line, Field: path, Msg: "want a mapping, found " + describe(n)}
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := resolve(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return &Error{Line: k.Line, Field: path, Msg: "a key must be a plain name, found " + describe(k)}
			}
			elem := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(resolve(n.Content[i+1]), elem, join(path, k.Value)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
		}
		v.Set(m)
		return nil
	}
	if n.Kind != yaml.ScalarNode && v.Kind() != reflect.Interface {
		return &Error{Line: n.Line, Field: path, Msg: "want a single value, found " + describe(n)}
	}
	return wrap(n, path, n.Decode(v.Addr().Interface()))
}

// wrap turns an error from yaml.v3 or a type's UnmarshalYAML into an
// *Error; an inner *Error keeps its own line and gets the path prefixed.
func wrap(n *yaml.Node, path string, err error) error {
	if err == nil {
		return nil
	}
	var inner *Error
	if errors.As(err, &inner) {
		return &Error{Line: inner.Line, Field: join(path, inner.Field), Msg: inner.Msg}
	}
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = strings.Join(te.Errors, "; ")
	}
	// Drop the "line N: " the inner decoder already put in front.
	msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", n.Line))
	return &Error{Line: n.Line, Field: path, Msg: msg}
}

func collect(t reflect.Type, index []int, out map[string][]int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		idx := append(slices.Clone(index), i)
		if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
			collect(f.Type, idx, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = idx
	}
}

func fieldByIndex(v reflect.Value, idx []int) reflect.Value {
	for _, i := range idx {
		v = v.Field(i)
	}
	return v
}

// suggest returns the valid key closest to k when it is a likely typo.
func suggest(k string, fields map[string][]int) string {
	best, bestD := "", 3
	for name := range fields {
		if strings.EqualFold(name, k) {
			return name
		}
		if d := distance(strings.ToLower(k), strings.ToLower(name)); d < bestD {
			best, bestD = name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func join(path, field string) string {
	switch {
	case path == "":
		return field
	case field == "":
		return path
	case strings.HasPrefix(field, "["):
		return path + field
	}
	return path + "." + field
}
