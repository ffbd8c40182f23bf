package main

import (
	"io"
	"strings"
	"testing"
)

// TestListenersRefuseRemoteAddresses: every command that listens refuses
// an address beyond loopback and says how to allow it.
func TestListenersRefuseRemoteAddresses(t *testing.T) {
	for _, args := range [][]string{
		{"server", "--listen", "0.0.0.0:0"},
		{"server", "--listen", ":0"},
		{"proxy", "--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:1", "--stage", "waf"},
		{"proxy", "--listen", ":0", "--upstream", "http://127.0.0.1:1"},
		{"proxy", "--admin", "10.1.2.3:0", "--upstream", "http://127.0.0.1:1"},
	} {
		cmd := newRootCmd()
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.ExecuteContext(t.Context())
		if err == nil || !strings.Contains(err.Error(), "loopback only") || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("%v: %v, want a refusal saying loopback only and --allow-remote", args, err)
		}
	}
}
