package diagnose

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`
floor: 5ms
server_slow:
  slow: 500ms
path_latency:
  share: 0.5
generator_saturated:
  cpu: 90
upload_limited:
  body: 1MiB
`))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultConfig()
	if c.Floor.D() != 5*time.Millisecond || thresholdsOf[serverSlowThresholds](&c).Slow.D() != 500*time.Millisecond ||
		thresholdsOf[pathLatencyThresholds](&c).Share != 0.5 || thresholdsOf[generatorThresholds](&c).CPU != 90 ||
		thresholdsOf[uploadThresholds](&c).Body != units.MiB {
		t.Errorf("overrides not applied: %+v", c)
	}
	if thresholdsOf[serverSlowThresholds](&c).Share != thresholdsOf[serverSlowThresholds](&d).Share ||
		thresholdsOf[tlsThresholds](&c) != thresholdsOf[tlsThresholds](&d) ||
		thresholdsOf[ceilingThresholds](&c) != thresholdsOf[ceilingThresholds](&d) || c.MinRequests != d.MinRequests {
		t.Errorf("fields left out must keep their defaults: %+v", c)
	}
	if c, err := ParseConfig(nil); err != nil || !reflect.DeepEqual(c, d) {
		t.Errorf("empty config: %v, %+v", err, c)
	}
	if !reflect.DeepEqual(DefaultConfig(), d) {
		t.Error("ParseConfig changed the defaults")
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"flor: 5ms\n", `line 1: flor: unknown field (did you mean "floor"?); valid fields: accept_queue, closed_model_backlog`},
		{"server_slow:\n  slw: 1s\n", `line 2: server_slow.slw: unknown field (did you mean "slow"?); valid fields: growth, share, slow`},
		{"server_slow:\n  slow: fast\n", `line 2: server_slow.slow: duration "fast"`},
		{"path_latency:\n  share: -1\n", `line 2: path_latency.share: "-1": want a number ≥ 0`},
		{"path_latency: 0.3\n", "line 1: path_latency: want a mapping with keys share"},
		{"upload_limited:\n  body: 3K\n", "ambiguous"},
		{"floor: [1, 2]\n", "line 1: floor: want a single value"},
		{"a: b: c\n", "rules config"},
	}
	for _, tt := range tests {
		_, err := ParseConfig([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseConfig(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestLoadConfigChangesTheVerdict(t *testing.T) {
	// E3a's server at 502 ms is slow by default; under a 1 s line the
	// server's time is simply the request's time: healthy.
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte("server_slow:\n  slow: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	assertCodes(t, Analyze(e3a(), c), CodeHealthy)
	assertCodes(t, Analyze(e3a(), DefaultConfig()), CodeServerSlow)
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "none.yaml")); err == nil {
		t.Error("a missing file must be an error")
	}
}

// The defaults doc.go lists parse to DefaultConfig: every key named there
// exists, with the default's value.
func TestDocListsTheDefaults(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "//\tfloor:")
	end := strings.Index(doc, "//\n// The package reads results only")
	if start < 0 || end < start {
		t.Fatal("doc.go: the defaults block not found")
	}
	var y strings.Builder
	for _, line := range strings.Split(doc[start:end], "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t")
		if i := strings.Index(line, "  #"); i >= 0 {
			line = line[:i]
		}
		y.WriteString(line + "\n")
	}
	c, err := ParseConfig([]byte(y.String()))
	if err != nil {
		t.Fatalf("doc.go's defaults: %v\n%s", err, y.String())
	}
	if !reflect.DeepEqual(c, DefaultConfig()) {
		t.Errorf("doc.go's defaults differ from DefaultConfig:\n%+v\n%+v", c, DefaultConfig())
	}
}
