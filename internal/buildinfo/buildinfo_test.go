package buildinfo

import (
	"strings"
	"testing"
)

// A test binary has no module version: the fallback must be a version,
// never an empty string that would make a User-Agent "middlebench/".
func TestVersionOfATestBinary(t *testing.T) {
	if v := Version(); v != "0.0.0-devel" {
		t.Errorf("Version() = %q in a test binary, want 0.0.0-devel", v)
	}
	if c := Commit(); c == "" || strings.ContainsAny(c, " \n") {
		t.Errorf("Commit() = %q", c)
	}
	if got := Tool(); got != "middlebench/0.0.0-devel" {
		t.Errorf("Tool() = %q", got)
	}
}
