package main

import (
	"io"
	"strings"
	"testing"
)

// TestWireFlagErrorsNameTheField: a bad --wire is refused before anything
// starts, naming the field; --wire without --serve-only is refused on run.
func TestWireFlagErrorsNameTheField(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--wire", "latency=soon"}, "latency"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--wire", "latency=1ms,lag=2ms"}, "lag: unknown field"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1", "--wire", "down.loss=200%"}, "loss"},
		{[]string{"run", "../../experiments/r1-connect-distance.yaml", "--wire", "latency=1ms"}, "--wire goes with --serve-only"},
	} {
		cmd := newRootCmd()
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.ExecuteContext(t.Context())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v, want an error naming %q", tt.args, err, tt.want)
		}
	}
}
