package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHelpShowsOneDefault: a flag of a units type left at zero shows no
// "(default 0s)" beside the default its usage text names; a real default
// still shows.
func TestHelpShowsOneDefault(t *testing.T) {
	zero := regexp.MustCompile(`\(default 0(s|B|/s|B/s)?\)`)
	for _, cmd := range []string{"server", "load", "proxy", "analyze", "bench", "run"} {
		out, code := runCLI(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		for _, line := range strings.Split(out, "\n") {
			if zero.MatchString(line) || strings.Count(line, "(default") > 1 {
				t.Errorf("%s --help: %q", cmd, strings.TrimSpace(line))
			}
		}
	}
	if out, _ := runCLI(t, "server", "--help"); !strings.Contains(out, `(default "127.0.0.1:8080")`) {
		t.Error(`server --help lost --listen's (default "127.0.0.1:8080")`)
	}
}

// TestVersionAndVerbose: "version" and --version print k6's shape of
// version line; -v is verbose, as in k6, not the version.
func TestVersionAndVerbose(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, code := runCLI(t, args...)
		if code != 0 || !regexp.MustCompile(`^middlebench v\d+\.\d+\.\d+\S* \(commit/\S+, go\S+, \w+/\w+\)\n$`).MatchString(out) {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	out, _ := runCLI(t, "load", "--help")
	if !strings.Contains(out, "-v, --verbose") {
		t.Errorf("load --help lacks the global -v, --verbose:\n%s", out)
	}
}
