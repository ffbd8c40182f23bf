package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestK6CommandRefusals: a script that cannot go through the path
// unchanged, or a command line k6 would not take, is one clear error; a
// refused script exits 104 (nothing sent), with no k6 on the machine too.
func TestK6CommandRefusals(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	src := "import http from 'k6/http';\nexport default function () {\n  http.get('http://shop.example.com/');\n  http.post('https://collect.example.org/e', '{}');\n}\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exp := "../../bench/k6path/testdata/shop.yaml"
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"k6", exp, "--host", "shop.example.com", "--", "run", script}, 104, "targets collect.example.org, which is not the path's (shop.example.com)"},
		{[]string{"k6", exp, "--", "run", script}, 104, "the script targets 2 hosts"},
		{[]string{"k6", exp, "--", "inspect", script}, 1, "run [k6 flags] SCRIPT.js"},
		{[]string{"k6", exp, "run", script}, 1, "EXPERIMENT.yaml -- run"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[2:], " "), func(t *testing.T) {
			root := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tt.args)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := root.ExecuteContext(ctx)
			if code := exitCode(err); code != tt.code || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("exit %d, %v; want exit %d saying %q", code, err, tt.code, tt.want)
			}
		})
	}
}
