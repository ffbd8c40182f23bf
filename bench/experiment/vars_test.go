package experiment

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestExpandVars(t *testing.T) {
	src := `title: E1
vars:
  delay: 300ms
  duration: 6s
quick:
  duration: 2s
path:
  handshakeDelay: ${delay}
runs:
  - duration: ${duration}
    max: ${delay} + 30ms
`
	full, err := expandVars([]byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(full), "handshakeDelay: 300ms") || !strings.Contains(string(full), "duration: 6s\n    max: 300ms + 30ms") {
		t.Errorf("full:\n%s", full)
	}
	if !strings.Contains(string(full), "  delay: 300ms") {
		t.Errorf("vars block changed:\n%s", full)
	}
	quick, err := expandVars([]byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(quick), "- duration: 2s") {
		t.Errorf("quick:\n%s", quick)
	}
	_, err = expandVars([]byte("vars:\n  a: 1\nx: ${b}\n"), false)
	if err == nil || !strings.Contains(err.Error(), "line 3: ${b} is not defined in vars (defined: a)") {
		t.Errorf("undefined var: %v", err)
	}
	_, err = expandVars([]byte("vars:\n  a: 1\nquick:\n  z: 2\n"), false)
	if err == nil || !strings.Contains(err.Error(), `quick: "z" is not in vars`) {
		t.Errorf("quick without var: %v", err)
	}
}

// varsDoc is an experiment file's top with n vars and a reference to
// each below.
func varsDoc(n int) []byte {
	var b strings.Builder
	b.WriteString("title: many vars\nvars:\n")
	for i := range n {
		fmt.Fprintf(&b, "  k%d: %dms\n", i, i)
	}
	b.WriteString("notes:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - ${k%d}\n", i)
	}
	return []byte(b.String())
}

// TestExpandVarsIsLinear: four times the vars (and references) take
// about four times as long, not sixteen (25k keys took 1.6 s, 100k 49 s).
// Judged as a ratio within one run, the best of three.
func TestExpandVarsIsLinear(t *testing.T) {
	small, large := varsDoc(25_000), varsDoc(100_000)
	took := func(src []byte) time.Duration {
		t0 := time.Now()
		out, err := expandVars(src, false)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte("  - 99ms\n")) {
			t.Fatal("a reference was not replaced")
		}
		return time.Since(t0)
	}
	best := math.Inf(1)
	for range 3 {
		ts, tl := took(small), took(large)
		ratio := float64(tl) / float64(ts)
		t.Logf("25k vars %v, 100k vars %v: ratio %.1f", ts, tl, ratio)
		best = min(best, ratio)
		if best < 8 {
			break
		}
	}
	if best >= 8 {
		t.Errorf("100k vars took %.1f× as long as 25k (best of 3), want below 8 (linear: 4, quadratic: 16)", best)
	}
}

// FuzzExpandVars: whatever the file, expandVars never panics; when it
// expands, no ${name} of a defined name is left outside the vars blocks.
func FuzzExpandVars(f *testing.F) {
	f.Add([]byte("title: t\nvars:\n  a: 1ms\nquick:\n  a: 2ms\nx: ${a}\n"))
	f.Add([]byte("vars:\n  a: [1]\n"))
	f.Add([]byte("vars:\n  a: 1\n  a: 2\n"))
	f.Add([]byte("vars: 3\n"))
	f.Add([]byte("x: ${b}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := expandVars(src, true)
		if err != nil {
			return
		}
		vars, _, err := readVarBlocks(src)
		if err != nil {
			t.Fatalf("expanded, but its vars do not read: %v", err)
		}
		inBlock := false
		for _, line := range bytes.Split(out, []byte("\n")) {
			if len(line) > 0 && line[0] != ' ' && line[0] != '#' {
				inBlock = bytes.HasPrefix(line, []byte("vars:")) || bytes.HasPrefix(line, []byte("quick:"))
			}
			if inBlock {
				continue
			}
			for name := range vars {
				if bytes.Contains(line, []byte("${"+name+"}")) && !bytes.Contains(src, []byte("${"+name+"}")) {
					t.Fatalf("line %q holds ${%s}, which the file did not", line, name)
				}
			}
		}
	})
}
