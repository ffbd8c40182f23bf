package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// A k6 script where the engine wants options, and the options of a script
// that checks and keeps a custom Trend (testdata/k6-inspect-shop.json is
// what k6 v1.8.1's `k6 inspect` printed for bench/k6path/testdata/shop.js):
// exit 104 with every option named, and not one request sent.
func TestScriptsAndTheirOptionsAreRefusedBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	execFile := filepath.Join(t.TempDir(), "exec.json")
	execOpts := `{"scenarios": {"shop": {"executor": "constant-vus", "vus": 2, "duration": "1s", "exec": "browse"}}}`
	if err := os.WriteFile(execFile, []byte(execOpts), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		o    Options
		says []string
	}{
		{"script as the target", Options{URL: "shop.js"}, []string{"runs options, not scripts", "middlebench k6 EXPERIMENT.yaml -- run shop.js"}},
		{"script as --config", Options{URL: srv.URL, ConfigFile: "dir/shop.ts"}, []string{"--config dir/shop.ts is a k6 script", "-- run dir/shop.ts"}},
		{"a script's inspect JSON", Options{URL: srv.URL, ConfigFile: "../testdata/k6-inspect-shop.json"}, []string{
			"thresholds.checks: checks are the script's check() calls",
			`thresholds.order_time: the engine has no metric "order_time"`,
			"middlebench k6 EXPERIMENT.yaml -- run SCRIPT.js"}},
		{"an exec function", Options{URL: srv.URL, ConfigFile: execFile}, []string{`scenarios.shop.exec: "browse" is a function of the script`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.Stdout, c.o.Stderr = io.Discard, io.Discard
			err := Run(context.Background(), c.o)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitInvalidConfig {
				t.Fatalf("got %v, want exit %d", err, ExitInvalidConfig)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%v\nwant it to say %q", err, s)
				}
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the server, want 0", n)
	}
}
