package proxy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunOneBoxFromFlags(t *testing.T) {
	up := origin(t)
	var out bytes.Buffer
	err := Run(context.Background(), RunOptions{Listen: "127.0.0.1:0", Upstream: up.URL,
		Stages: []string{"waf:delay=1ms", "ratelimit:rate=100/s"}, Duration: 50 * time.Millisecond, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "box box listening on http://127.0.0.1:", "(http, waf → ratelimit)", "entry: http://", "box box 127.0.0.1:")
}

func TestRunFromFile(t *testing.T) {
	up := origin(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "path.yaml")
	os.WriteFile(good, []byte("boxes:\n  - name: lb\n    stages: [{kind: tls}]\n"), 0o600)
	var out bytes.Buffer
	if err := Run(context.Background(), RunOptions{Config: good, Upstream: up.URL, Admin: "127.0.0.1:0", Duration: 50 * time.Millisecond, Out: &out}); err != nil {
		t.Fatal(err)
	}
	contains(t, out.String(), "box lb listening on https://", "admin: http://127.0.0.1:")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("boxes:\n  - name: lb\n    stages:\n      - kind: waf\n        delay: 1 second\n"), 0o600)
	err := Run(context.Background(), RunOptions{Config: bad, Upstream: up.URL})
	if err == nil || !strings.Contains(err.Error(), "bad.yaml: line 5: box \"lb\", stage 1 (waf), delay:") {
		t.Fatalf("error %v", err)
	}
}

func TestRunRefuses(t *testing.T) {
	for _, tt := range []struct {
		o    RunOptions
		want string
	}{
		{RunOptions{}, "--upstream is required"},
		{RunOptions{Upstream: "http://127.0.0.1:1", Config: "x.yaml", Stages: []string{"waf"}}, "not both"},
		{RunOptions{Upstream: "http://127.0.0.1:1", Stages: []string{"nope"}}, "unknown stage kind"},
		{RunOptions{Upstream: "http://127.0.0.1:1", Config: "/nonexistent.yaml"}, "no such file"},
		{RunOptions{Upstream: "http://127.0.0.1:1", Listen: "10.1.2.3:80"}, "loopback only"},
	} {
		if err := Run(context.Background(), tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v) = %v, want %q", tt.o, err, tt.want)
		}
	}
}
