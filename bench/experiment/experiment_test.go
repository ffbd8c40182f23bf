package experiment

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseExperimentErrors(t *testing.T) {
	base := "title: t\nserver:\n  work: 1ms\n"
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "empty"},
		{"unknown top-level key", base + "rnus: []\n", `line 4: rnus: unknown field (did you mean "runs"?)`},
		{"no runs", base, "at least one run"},
		{"no title", "runs: [{name: a}]\n", "title is required"},
		{"unknown load field", base + "runs:\n  - name: a\n    load:\n      vu: 3\n", "line 7: runs[0].load.vu: unknown field"},
		{"bad duration", base + "runs:\n  - name: a\n    load:\n      duration: soon\n", "line 7"},
		{"unknown stage kind", base + "path:\n  boxes:\n    - name: b\n      stages:\n        - kind: firewall\n" + "runs: [{name: a}]\n", "firewall"},
		{"duplicate run", base + "runs: [{name: a}, {name: a}]\n", `run "a": two runs have this name`},
		{"near an unknown run", base + "runs:\n  - name: a\n    expect:\n      bands:\n        - {metric: tps, near: b, within: 1%}\n", `near "b" is not a run`},
		{"bad band", base + "runs:\n  - name: a\n    expect:\n      bands:\n        - {metric: tps}\n", "give min and/or max"},
		{"undefined var", base + "runs:\n  - name: ${who}\n", "line 5: ${who} is not defined"},
		{"figure without metric", base + "runs: [{name: a}]\narticle:\n  - {label: x, article: 1 ms, run: a}\n", "needs the metric"},
		{"chart kind", base + "runs: [{name: a}]\ncharts:\n  - kind: pie\n", `kind "pie"`},
		{"reference without a label", base + "runs: [{name: a}]\ncharts:\n  - kind: phases\n    refs: [{value: 1ms}]\n", "charts[0].refs[0]: a reference line needs a label"},
		{"reference not a number", base + "runs: [{name: a}]\ncharts:\n  - kind: phases\n    refs: [{label: cap, value: lots}]\n", `charts[0].refs[0] (cap): expression "lots"`},
		{"reference on a missing panel", base + "runs: [{name: a}]\ncharts:\n  - {kind: sweep, x: vus, lines: [tps], refs: [{label: cap, value: \"40\", panel: panel}]}\n", `panel "panel": want lines or panel`},
		{"direct with a path", base + "runs:\n  - name: a\n    direct: true\n    path: {boxes: [{name: b, stages: [{kind: waf, delay: 1ms}]}]}\n", "direct and path are alternatives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestEveryExperimentParses keeps experiments/ loadable, full and quick.
func TestEveryExperimentParses(t *testing.T) {
	files, err := filepath.Glob("../../experiments/*.yaml")
	if err != nil || len(files) < 12 {
		t.Fatalf("found %d experiments (%v), want at least 12", len(files), err)
	}
	for _, f := range files {
		for _, quick := range []bool{false, true} {
			e, err := Load(f, quick)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			if e.Claim == "" || len(e.Article) == 0 {
				t.Errorf("%s: a teacher needs the claim and the article's figures", f)
			}
		}
	}
}

func TestIsolationSplit(t *testing.T) {
	tests := []struct {
		name     string
		iso      Isolation
		all      []int
		gen, srv []int
	}{
		{"as configured", Isolation{GeneratorCPUs: []int{3}, ServerCPUs: []int{0, 1}}, []int{0, 1, 2, 3}, []int{3}, []int{0, 1}},
		{"halves", Isolation{}, []int{0, 1, 2, 3}, []int{0, 1}, []int{2, 3}},
		{"the server gets the odd one", Isolation{}, []int{0, 1, 2}, []int{0}, []int{1, 2}},
		{"one side configured: halves", Isolation{ServerCPUs: []int{3}}, []int{0, 1, 2, 3}, []int{0, 1}, []int{2, 3}},
		{"one CPU: nothing to split", Isolation{}, []int{0}, nil, nil},
	}
	for _, tt := range tests {
		gen, srv := tt.iso.Split(tt.all)
		if !slices.Equal(gen, tt.gen) || !slices.Equal(srv, tt.srv) {
			t.Errorf("%s: %v / %v, want %v / %v", tt.name, gen, srv, tt.gen, tt.srv)
		}
	}
}
