package bench

import (
	"strings"
	"testing"
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
