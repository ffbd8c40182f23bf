package mystery

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/middlebench/middlebench/proxy"
	"gopkg.in/yaml.v3"
)

// The draw is a pure function of (seed, level): drawing twice gives the
// same path, field for field, and a literal draw pins it across machines
// and Go versions (PCG and IntN are specified by math/rand/v2).
func TestDrawIsTheSameForTheSameSeed(t *testing.T) {
	for _, l := range Levels() {
		for seed := uint64(1); seed <= 20; seed++ {
			a, err := Draw(seed, l)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Draw(seed, l)
			ya, yb := pathYAML(t, a), pathYAML(t, b)
			if ya != yb || fmt.Sprint(a.Server) != fmt.Sprint(b.Server) {
				t.Fatalf("seed %d level %s: two draws differ:\n%s\n%s", seed, l, ya, yb)
			}
		}
	}
	m, err := Draw(44, LevelOne)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) != 1 || m.Parts[0].Stage != "waf:delay=150ms" {
		t.Fatalf("seed 44 level one: want the catalogue's waf at 150 ms (the draw changed: old seeds now mean other mysteries), got %+v", m.Parts)
	}
}

// The README's practice example: seed 7, level one, is a rate limiter,
// answered rate-limited.
func TestReadmePracticeSeed7(t *testing.T) {
	m, err := Draw(7, LevelOne)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Parts[0]; p.Cause != "ratelimit" || !slices.Contains(p.Codes, "rate-limited") || m.ID != "7-one" {
		t.Fatalf("practice seed 7 level one drew %+v (id %s); the README says a rate limiter, answered rate-limited", p, m.ID)
	}
}

func pathYAML(t *testing.T, m *Mystery) string {
	t.Helper()
	b, err := yaml.Marshal(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLevelsHaveTheirShape(t *testing.T) {
	seen := map[string]bool{}
	for _, l := range Levels() {
		for seed := uint64(1); seed <= 200; seed++ {
			m, err := Draw(seed, l)
			if err != nil {
				t.Fatal(err)
			}
			real, decoys := len(m.Real()), len(m.Parts)-len(m.Real())
			want := map[Level][2]int{LevelOne: {1, 0}, LevelTwo: {2, 0}, LevelDecoy: {1, 1}}[l]
			if real != want[0] || decoys != want[1] {
				t.Fatalf("seed %d level %s: %d causes and %d decoys, want %v", seed, l, real, decoys, want)
			}
			if len(m.Parts) == 2 {
				a, _ := causeByID(m.Parts[0].Cause)
				b, _ := causeByID(m.Parts[1].Cause)
				if !compatible(a, b) {
					t.Fatalf("seed %d level %s: %s and %s cannot share a mystery", seed, l, a.id, b.id)
				}
			}
			for _, p := range m.Parts {
				seen[p.Cause] = true
			}
			for _, p := range m.Parts {
				if p.Kind == "budget" {
					t.Fatalf("seed %d level %s: the load budget drawn as a part of the puzzle: %+v", seed, l, p)
				}
			}
			if len(m.Path.Boxes) != 2 || !slices.ContainsFunc(m.Path.Boxes[0].Stages, func(s proxy.StageConfig) bool { return s.Kind == "budget" }) ||
				m.Path.Boxes[1].Stages[0].Kind != "tls" || m.Path.Boxes[1].Stages[1].Kind != "budget" {
				t.Fatalf("seed %d level %s: every mystery is net box → TLS-terminating edge box with its load budget first among the HTTP stages, got %s", seed, l, pathYAML(t, m))
			}
		}
	}
	for _, id := range CatalogueIDs() {
		if !seen[id] {
			t.Errorf("cause %s is never drawn in 200 seeds", id)
		}
	}
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]Level{"": LevelOne, "one": LevelOne, "two": LevelTwo, " decoy ": LevelDecoy} {
		if got, err := ParseLevel(in); err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseLevel("three"); !errors.Is(err, ErrLevel) {
		t.Errorf("ParseLevel(three): %v, want ErrLevel", err)
	}
	if _, err := Draw(1, "hard"); !errors.Is(err, ErrLevel) {
		t.Errorf("Draw(level hard): %v, want ErrLevel", err)
	}
}

func TestEveryCauseHasARuleAndCodes(t *testing.T) {
	for _, c := range catalogue {
		if Rule(c.rule) == "" || len(c.codes) == 0 || c.real == nil || c.explain == nil {
			t.Errorf("cause %s: rule %d, codes %v: each cause needs a rule of the article, codes, a draw and an explanation", c.id, c.rule, c.codes)
		}
		if !slices.Contains([]string{whereNet, whereEdge, whereServer}, c.where) {
			t.Errorf("cause %s: where %q", c.id, c.where)
		}
	}
}
