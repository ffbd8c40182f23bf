package buildinfo

import (
	"strings"
	"testing"
)

// A test binary has no module version: the fallbacks must read "devel",
// never an empty string that would make a User-Agent "middlebench/".
func TestVersionOfATestBinary(t *testing.T) {
	if v := Version(); v != "devel" {
		t.Errorf("Version() = %q in a test binary, want devel", v)
	}
	if c := Commit(); c == "" || strings.ContainsAny(c, " \n") {
		t.Errorf("Commit() = %q", c)
	}
	if got := Tool(); got != "middlebench/devel" {
		t.Errorf("Tool() = %q", got)
	}
}
