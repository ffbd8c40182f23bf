package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestLoadBadInput: each bad input is a one-line error and a non-zero exit.
func TestLoadBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"load", "--vus-count", "3", "http://127.0.0.1:1/"}, "unknown flag"},
		{[]string{"load", "--threshold", "http_req_failed:rate", "http://127.0.0.1:1/"}, "no operator"},
		{[]string{"load", "--stage", "30s", "http://127.0.0.1:1/"}, "DURATION:TARGET"},
		{[]string{"load", "--duration", "5 seconds", "http://127.0.0.1:1/"}, "Go syntax"},
		{[]string{"load", "--vus", "0", "--iterations", "1", "http://127.0.0.1:1/"}, "VUs must be more than 0"},
		{[]string{"load", "--duration", "0s", "http://127.0.0.1:1/"}, "should be more than 0"},
		{[]string{"load", "--iterations", "1", "ftp://127.0.0.1/"}, "http:// or https://"},
		{[]string{"load", "--summary-mode", "long", "--iterations", "1", "http://127.0.0.1:1/"}, "compact or full"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			root := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tt.args)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := root.ExecuteContext(ctx)
			code := exitCode(err)
			if err == nil || code == 0 {
				t.Fatalf("exit %d, err %v", code, err)
			}
			if !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q (exit %d), want one line with %q", err, code, tt.want)
			}
		})
	}
}
