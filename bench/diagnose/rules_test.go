package diagnose

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The package doc's list of codes and its rules' defaults are the rules
// table's: TestDocListsEveryCode checks them, and with -update rewrites
// them from the table (a new rule's row is all it takes).

// defaultsHead is the line of doc.go before its defaults.
const defaultsHead = "their line). The defaults:\n//\n"

// codesHead is the line of doc.go before its list of codes.
const codesHead = "the list is drawn from the rules table (go test -update rewrites it).\n//\n"

// docWidth: doc.go's generated lines wrap past this many characters.
const docWidth = 100

func TestDocListsEveryCode(t *testing.T) {
	seen := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		switch {
		case r.code == "":
			t.Errorf("row %d has no code", i)
		case seen[r.code]:
			t.Errorf("row %d: %s is in the table twice", i, r.code)
		case strings.TrimSpace(r.doc) == "":
			t.Errorf("%s has no doc line (its row's doc is empty)", r.code)
		}
		seen[r.code] = true
	}
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	want, err := rewriteDoc(src)
	if err != nil {
		t.Fatal(err)
	}
	if *update && want != src {
		if err := os.WriteFile("doc.go", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("doc.go rewritten from the rules table")
		src = want
	}
	listed, err := docCodes(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range Codes() {
		if _, ok := listed[code]; !ok {
			t.Errorf("%s has no doc line in doc.go's list of codes", code)
		}
	}
	for code := range listed {
		if !slices.Contains(Codes(), code) {
			t.Errorf("doc.go's list of codes names %q, which is no code", code)
		}
	}
	if want != src {
		t.Errorf("doc.go's list of codes or its defaults are not the rules table's: run\n" +
			"\tgo test -run TestDocListsEveryCode -update ./bench/diagnose/\nand read the diff")
	}
}

// Each rule's thresholds are a struct of a type of its own (thresholdsOf
// finds them by type) whose every field has a YAML key, and DefaultConfig
// holds the row's defaults under the rule's code.
func TestRuleThresholds(t *testing.T) {
	types := map[reflect.Type]string{}
	d := DefaultConfig()
	for i := range rules {
		r := &rules[i]
		if r.defaults == nil {
			continue
		}
		ty := reflect.TypeOf(r.defaults)
		if ty.Kind() != reflect.Struct {
			t.Errorf("%s: defaults of type %s, want a struct", r.code, ty)
			continue
		}
		if other, dup := types[ty]; dup {
			t.Errorf("%s and %s share the thresholds type %s: each rule needs its own", other, r.code, ty)
		}
		types[ty] = r.code
		for j := range ty.NumField() {
			if f := ty.Field(j); !f.IsExported() || f.Tag.Get("yaml") == "" {
				t.Errorf("%s: field %s needs to be exported with a yaml tag", r.code, f.Name)
			}
		}
		if !reflect.DeepEqual(d.rules[i], r.defaults) {
			t.Errorf("%s: DefaultConfig holds %+v, want the row's %+v", r.code, d.rules[i], r.defaults)
		}
	}
	if len(d.rules) != len(rules) {
		t.Errorf("DefaultConfig holds %d rules' thresholds, the table %d rows", len(d.rules), len(rules))
	}
	// A rule that reads thresholds no row gives would read zeros.
	names := map[string]bool{}
	for ty := range types {
		names[ty.Name()] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`thresholdsOf\[(\w+)\]`)
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(b), -1) {
			if !names[m[1]] && m[1] != "T" {
				t.Errorf("%s reads %s, which no row of the rules table gives", fn, m[1])
			}
		}
	}
}

// docCodes reads doc.go's list of codes: code → its doc line.
func docCodes(src string) (map[string]string, error) {
	start, end, err := block(src, codesHead)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	last := ""
	for _, l := range strings.Split(strings.TrimSuffix(src[start:end], "\n"), "\n") {
		body, ok := strings.CutPrefix(l, "//\t")
		switch {
		case !ok:
			return nil, fmt.Errorf("doc.go: %q in the list of codes is not an indented line", l)
		case strings.HasPrefix(body, " ") && last != "":
			out[last] += " " + strings.TrimSpace(body)
		default:
			code, doc, _ := strings.Cut(body, " ")
			out[code], last = strings.TrimSpace(doc), code
		}
	}
	return out, nil
}

// rewriteDoc returns src with its list of codes and its rules' defaults
// drawn from the table; the analyzer's own defaults, written by hand with
// their comments, stay first.
func rewriteDoc(src string) (string, error) {
	start, end, err := block(src, codesHead)
	if err != nil {
		return "", err
	}
	width := 0
	for _, c := range CodeDocs() {
		width = max(width, utf8.RuneCountInString(c.Code)+1)
	}
	var list strings.Builder
	for _, c := range CodeDocs() {
		writeWrapped(&list, fmt.Sprintf("%-*s", width, c.Code), strings.Fields(c.Doc), " ")
	}
	src = src[:start] + list.String() + src[end:]

	start, end, err = block(src, defaultsHead)
	if err != nil {
		return "", err
	}
	var defaults strings.Builder
	for _, l := range strings.SplitAfter(src[start:end], "\n") {
		key, _, _ := strings.Cut(strings.TrimPrefix(l, "//\t"), ":")
		if l != "" && !isRuleKey(key) && !strings.HasPrefix(l, "//\t ") {
			defaults.WriteString(l)
		}
	}
	for i := range rules {
		if r := &rules[i]; r.defaults != nil {
			writeWrapped(&defaults, yamlKey(r.code)+": {", thresholdFields(r.defaults), ", ")
		}
	}
	return src[:start] + defaults.String() + src[end:], nil
}

// block finds the indented lines after head, up to the next empty
// comment line.
func block(src, head string) (start, end int, err error) {
	i := strings.Index(src, head)
	if i < 0 {
		return 0, 0, fmt.Errorf("doc.go: %q not found", strings.TrimSpace(head))
	}
	start = i + len(head)
	j := strings.Index(src[start:], "\n//\n")
	if j < 0 {
		return 0, 0, fmt.Errorf("doc.go: no end to the block after %q", strings.TrimSpace(head))
	}
	return start, start + j + 1, nil
}

func isRuleKey(key string) bool {
	for i := range rules {
		if yamlKey(rules[i].code) == key {
			return true
		}
	}
	return false
}

// thresholdFields renders a thresholds struct as YAML flow items, the
// last closing the mapping: "slow: 200ms", "share: 0.3}".
func thresholdFields(v any) []string {
	rv := reflect.ValueOf(v)
	var out []string
	for i := range rv.NumField() {
		f := rv.Field(i)
		s := fmt.Sprint(f.Interface())
		if st, ok := f.Interface().(fmt.Stringer); ok {
			s = st.String()
		}
		out = append(out, rv.Type().Field(i).Tag.Get("yaml")+": "+s)
	}
	if len(out) > 0 {
		out[len(out)-1] += "}"
	}
	return out
}

// writeWrapped writes head and the words joined by sep as doc.go lines of
// at most docWidth characters, continuation lines indented under the
// first word.
func writeWrapped(b *strings.Builder, head string, words []string, sep string) {
	line := head
	for i, w := range words {
		switch {
		case i == 0:
			line += w
		case utf8.RuneCountInString(line+sep+w) > docWidth:
			b.WriteString("//\t" + line + strings.TrimRight(sep, " ") + "\n")
			line = strings.Repeat(" ", utf8.RuneCountInString(head)) + w
		default:
			line += sep + w
		}
	}
	b.WriteString("//\t" + line + "\n")
}
