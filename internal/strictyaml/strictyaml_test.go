package strictyaml

import (
	"strings"
	"testing"

	"github.com/middlebench/middlebench/internal/units"
	"gopkg.in/yaml.v3"
)

type inner struct {
	Delay units.Duration `yaml:"delay"`
	Count int            `yaml:"count"`
}

type common struct {
	Name string `yaml:"name"`
}

type outer struct {
	common  `yaml:",inline"`
	Seed    uint64            `yaml:"seed"`
	Inner   inner             `yaml:"inner"`
	List    []inner           `yaml:"list"`
	Ptr     *inner            `yaml:"ptr"`
	Headers map[string]string `yaml:"headers"`
	Tags    []string          `yaml:"tags"`
	Skip    string            `yaml:"-"`
	Plain   bool
	Later   yaml.Node `yaml:"later"`
}

func parse(t *testing.T, src string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func TestDecodeGood(t *testing.T) {
	src := `
name: edge
seed: 7
inner: {delay: 450ms, count: 3}
list:
  - delay: 1s
  - count: 2
ptr: {count: 9}
headers: {X-Test: "yes"}
tags: [a, b]
plain: true
later: {any: [thing]}
`
	var v outer
	if err := Decode(parse(t, src), &v); err != nil {
		t.Fatal(err)
	}
	if v.Name != "edge" || v.Seed != 7 || v.Inner.Delay.String() != "450ms" || v.Inner.Count != 3 ||
		len(v.List) != 2 || v.List[0].Delay.String() != "1s" || v.List[1].Count != 2 || v.Ptr == nil || v.Ptr.Count != 9 ||
		v.Headers["X-Test"] != "yes" || len(v.Tags) != 2 || !v.Plain || v.Later.Kind != yaml.MappingNode || v.Later.Line != 12 {
		t.Fatalf("decoded %+v", v)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown top", "seed: 1\nsed: 2\n", []string{"line 2", `sed: unknown field (did you mean "seed"?)`, "valid fields: headers, inner, later, list, name, plain, ptr, seed, tags"}},
		{"unknown nested", "inner:\n  count: 1\n  dealy: 5ms\n", []string{"line 3", "inner.dealy", `did you mean "delay"`}},
		{"unknown in list", "list:\n  - count: 1\n  - bogus: 1\n", []string{"line 3", "list[1].bogus", "valid fields: count, delay"}},
		{"bad unit", "inner:\n  delay: -5ms\n", []string{"line 2", "inner.delay", "must not be negative"}},
		{"bad int", "inner: {count: lots}\n", []string{"line 1", "inner.count", "cannot unmarshal"}},
		{"not a mapping", "inner: 5\n", []string{"line 1", "inner", "want a mapping with keys count, delay"}},
		{"not a list", "tags: a\n", []string{"line 1", "tags", "want a list"}},
		{"twice", "seed: 1\nseed: 2\n", []string{"line 2", "seed", "given twice (first on line 1)"}},
		{"skipped field", "Skip: x\n", []string{"unknown field"}},
		{"scalar for string", "name: [a]\n", []string{"name", "want a single value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v outer
			err := Decode(parse(t, tt.src), &v)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDecodeRejectsNonStruct(t *testing.T) {
	var x int
	if err := Decode(parse(t, "a: 1"), &x); err == nil {
		t.Fatal("want an error for a non-struct")
	}
}

func TestKeys(t *testing.T) {
	if got := strings.Join(Keys(inner{}), ","); got != "count,delay" {
		t.Fatalf("Keys = %s", got)
	}
}

func TestIsList(t *testing.T) {
	for key, want := range map[string]bool{"tags": true, "list": true, "name": false, "headers": false, "seed": false, "missing": false, "plain": false} {
		if got := IsList(&outer{}, key); got != want {
			t.Errorf("IsList(%q) = %v, want %v", key, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("seed: 1\ninner: {delay: 1s}\n")
	f.Add("list: [{count: 1}, {bogus: 2}]\n")
	f.Add("ptr: &a {count: 1}\nInner: *a\n")
	f.Add("headers: {a: [1]}\n")
	f.Fuzz(func(t *testing.T, src string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(src), &n) != nil {
			return
		}
		var v outer
		_ = Decode(&n, &v) // must not panic
	})
}
