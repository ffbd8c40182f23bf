package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLIErr is runCLI with the error (main prints it) kept.
func runCLIErr(args ...string) (string, int, error) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), exitCode(err), err
}

// A dashboard beyond loopback is refused unless allowed, naming the flag's
// value; bad answers name the bad code; reveal of a mystery that never ran
// still prints what was drawn.
func TestDashboardAndMysteryFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"load", "--dashboard", "0.0.0.0:26999", "-d", "1s", "http://127.0.0.1:1/"}, 1, "not loopback"},
		{[]string{"mystery", "answer", "--state-dir", dir, "--seed", "3", "--name", "ada", "slowness"}, 1, `"slowness": not a finding code`},
		{[]string{"mystery", "answer", "--state-dir", dir, "--seed", "3", "--level", "hard", "path-latency"}, 1, "--level"},
		{[]string{"mystery", "answer", "--state-dir", dir, "--seed", "3", "path-latency"}, 1, "name: give 1 to 64"},
		{[]string{"mystery", "answer", "--state-dir", dir, "--id", "m0123456789ab", "--name", "ada", "path-latency"}, 1, "no mystery with this id"},
		{[]string{"mystery", "answer", "--state-dir", dir, "--seed", "3", "--name", "ada", "path-latency"}, 0, "recorded for ada: path-latency"},
		{[]string{"mystery", "reveal", "--state-dir", dir, "--seed", "3"}, 0, "ada: path-latency"},
		{[]string{"mystery", "rules"}, 0, " 9. (nearly) all fail fast with 403"},
		// Refused before anything serves (issue 36, 8a): it used to print
		// the refusal and serve on without a dashboard.
		{[]string{"mystery", "--state-dir", dir, "--dashboard", "0.0.0.0:26999", "--duration", "1m"}, 2, "not loopback"},
	} {
		out, code, err := runCLIErr(tc.args...)
		if err != nil {
			out += err.Error()
		}
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %d; output lacks %q:\n%s", tc.args, code, tc.code, tc.want, out)
		}
	}
}
