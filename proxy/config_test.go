package proxy

import (
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestPathConfigDecodes(t *testing.T) {
	src := `
seed: 42
ledgerHeader: true
boxes:
  - name: edge
    listen: 127.0.0.1:0
    stages:
      - kind: accept
        rate: 100/s
        backlog: 8
      - kind: link
        latency: 15ms
      - kind: tls
        handshakeDelay: 300ms
        maxConcurrentHandshakes: 4
        resumption: false
        minVersion: "1.3"
      - kind: bandwidth
        down: 10MiB/s
  - name: waf
    stages:
      - kind: waf
        delay: normal:450ms,10ms
        perKiB: 1ms
        maxConcurrent: 2
        queue: 10
        block: [{path: "^/admin"}]
      - kind: ratelimit
        rate: 100/s
        key: header:X-Api-Key
      - kind: uablock
        allowHeader: X-Load-Test
        allowValue: s3cret
        allowIPs: [10.0.0.0/8, 127.0.0.1]
      - kind: fault
        abortPercent: 1.5
        abortStatus: 500
        headers: {X-Fault: "on"}
`
	var cfg PathConfig
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 42 || !cfg.LedgerHeader || len(cfg.Boxes) != 2 || len(cfg.Boxes[0].Stages) != 4 || len(cfg.Boxes[1].Stages) != 4 {
		t.Fatalf("decoded %+v", cfg)
	}
	tc := cfg.Boxes[0].Stages[2].Spec.(*TLSConfig)
	if tc.HandshakeDelay.Mean() != 300*time.Millisecond || tc.MaxConcurrentHandshakes != 4 || *tc.Resumption || tc.MinVersion != "1.3" {
		t.Fatalf("tls = %+v", tc)
	}
	waf := cfg.Boxes[1].Stages[0].Spec.(*WAFConfig)
	if waf.Delay.Mean() != 450*time.Millisecond || waf.PerKiB.D() != time.Millisecond || waf.Block[0].Path != "^/admin" {
		t.Fatalf("waf = %+v", waf)
	}
	// Round trip through MarshalYAML.
	out, err := yaml.Marshal(cfg.Boxes[1].Stages[0])
	if err != nil || !strings.Contains(string(out), "kind: waf") || !strings.Contains(string(out), "normal:450ms,10ms") {
		t.Fatalf("marshal: %v\n%s", err, out)
	}
}

func TestPathConfigErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown kind", "boxes:\n  - name: a\n    stages:\n      - kind: firewall\n",
			[]string{"line 4", `box "a", stage 1 (firewall)`, "unknown stage kind", "valid kinds: " + strings.Join(Kinds(), ", ")}},
		{"missing kind", "boxes:\n  - stages:\n      - delay: 1s\n", []string{"line 3", "box 1, stage 1", "kind: missing"}},
		{"unknown field", "boxes:\n  - name: w\n    stages:\n      - kind: waf\n        dealy: 450ms\n",
			[]string{"line 5", `box "w", stage 1 (waf)`, `dealy: unknown field (did you mean "delay"?)`, "valid fields: block, blockStatus, delay"}},
		{"negative duration", "boxes:\n  - stages:\n      - kind: waf\n        delay: -450ms\n", []string{"line 4", "box 1, stage 1 (waf)", "delay", `"-450ms"`}},
		{"bad rate", "boxes:\n  - stages:\n      - kind: ratelimit\n        rate: lots\n", []string{"line 4", "rate", "events per period"}},
		{"zero rate", "boxes:\n  - stages:\n      - kind: ratelimit\n        key: ip\n", []string{"line 3", "rate: required"}},
		{"bad key", "boxes:\n  - stages:\n      - kind: ratelimit\n        rate: 1/s\n        key: cookie\n", []string{"line 5", "key", "global, ip or header:NAME"}},
		{"bad regex", "boxes:\n  - stages:\n      - kind: uablock\n        patterns: ['(']\n", []string{"line 4", "patterns: item 1"}},
		{"conn after http", "boxes:\n  - name: x\n    stages:\n      - kind: waf\n      - kind: link\n", []string{`box "x"`, "must come before the HTTP stages"}},
		{"two tls", "boxes:\n  - stages:\n      - kind: tls\n      - kind: tls\n", []string{"at most one tls"}},
		{"not host:port", "boxes:\n  - listen: 8080\n", []string{"line 2", "listen", "host:port"}},
		{"no boxes", "seed: 1\n", []string{"at least one box"}},
		{"same names", "boxes:\n  - name: a\n  - name: a\n", []string{"both named"}},
		{"negative perKiB", "boxes:\n  - stages:\n      - kind: waf\n        perKiB: -1ms\n", []string{"line 4", "perKiB", "negative"}},
		{"bad percent", "boxes:\n  - stages:\n      - kind: fault\n        abortPercent: 150\n", []string{"line 4", "abortPercent", "0 to 100"}},
		{"bad tls version", "boxes:\n  - stages:\n      - kind: tls\n        minVersion: \"1.0\"\n", []string{"line 4", "minVersion", "1.2 or 1.3"}},
		{"bad tls curve", "boxes:\n  - stages:\n      - kind: tls\n        curves: [X25519, x448]\n", []string{"line 4", "curves", `"x448"`, "X25519MLKEM768, SecP256r1MLKEM768"}},
		{"tls curve twice", "boxes:\n  - stages:\n      - kind: tls\n        curves: [x25519, X25519]\n", []string{"line 4", "curves", "X25519 is listed twice"}},
		{"pq curves for tls 1.2", "boxes:\n  - stages:\n      - kind: tls\n        maxVersion: \"1.2\"\n        curves: [X25519MLKEM768]\n", []string{"curves", "TLS 1.3 only"}},
		{"unknown box field", "boxes:\n  - name: a\n    stagez: []\n", []string{"line 3", `box "a"`, "stagez", `did you mean "stages"`}},
		{"queue without capacity", "boxes:\n  - stages:\n      - kind: waf\n        queue: 3\n", []string{"line 4", "queue", "needs maxConcurrent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg PathConfig
			err := yaml.Unmarshal([]byte(tt.src), &cfg)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestEmbeddedPathConfig is how the harness will embed a path.
func TestEmbeddedPathConfig(t *testing.T) {
	var exp struct {
		Name string     `yaml:"name"`
		Path PathConfig `yaml:"path"`
	}
	err := yaml.Unmarshal([]byte("name: e3b\npath:\n  boxes:\n    - stages:\n        - kind: waf\n          delay: 450ms\n"), &exp)
	if err != nil || len(exp.Path.Boxes) != 1 {
		t.Fatalf("embedded: %v %+v", err, exp)
	}
	err = yaml.Unmarshal([]byte("name: e3b\npath:\n  boxes:\n    - stages:\n        - kind: waf\n          delay: soon\n"), &exp)
	if err == nil || !strings.Contains(err.Error(), "line 6") {
		t.Fatalf("want a line-6 error, got %v", err)
	}
}

func TestParseStage(t *testing.T) {
	tests := []struct {
		in      string
		check   func(StageConfig) bool
		wantErr string
	}{
		{in: "waf:delay=450ms", check: func(s StageConfig) bool { return s.Spec.(*WAFConfig).Delay.Mean() == 450*time.Millisecond }},
		{in: "ratelimit:rate=100/s,window=1s", check: func(s StageConfig) bool {
			c := s.Spec.(*RateLimitConfig)
			return c.Rate.PerSecond() == 100 && c.Window.D() == time.Second
		}},
		{in: "waf:delay=normal:50ms,5ms,maxConcurrent=4", check: func(s StageConfig) bool {
			c := s.Spec.(*WAFConfig)
			return c.Delay.String() == "normal:50ms,5ms" && c.MaxConcurrent == 4
		}},
		{in: "tls:handshakeDelay=lognormal:p50=40ms,p99=200ms", check: func(s StageConfig) bool {
			return s.Spec.(*TLSConfig).HandshakeDelay.String() == "lognormal:p50=40ms,p99=200ms"
		}},
		{in: "uablock:patterns=[^curl/, ^Wget/],status=401", check: func(s StageConfig) bool {
			c := s.Spec.(*UABlockConfig)
			return len(c.Patterns) == 2 && c.Status == 401
		}},
		{in: "uablock:patterns=curl/", check: func(s StageConfig) bool {
			return slices.Equal(s.Spec.(*UABlockConfig).Patterns, []string{"curl/"})
		}},
		{in: "uablock:patterns=^curl/, ^Wget/,x{1,3},status=401", check: func(s StageConfig) bool {
			c := s.Spec.(*UABlockConfig)
			return slices.Equal(c.Patterns, []string{"^curl/", "^Wget/", "x{1,3}"}) && c.Status == 401
		}},
		{in: "uablock:patterns=(", wantErr: "patterns: item 1"},
		{in: "link", check: func(s StageConfig) bool { return s.Kind == "link" }},
		{in: "waf:dealy=450ms", wantErr: `dealy: unknown field (did you mean "delay"?)`},
		{in: "waf:delay=1s,dealy=2s", wantErr: "dealy: unknown field"},
		{in: "proxy:x=1", wantErr: "unknown stage kind"},
		{in: "fault:abortPercent=5,spread=evenly", wantErr: `spread: "evenly": want random or even`},
		{in: "waf:delay=450ms,delay=1s", wantErr: "given twice"},
		{in: "ratelimit:rate=-1/s", wantErr: "negative"},
		{in: "waf:=1", wantErr: "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			s, err := ParseStage(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(s) {
				t.Fatalf("ParseStage(%q) = %+v, %v", tt.in, s.Spec, err)
			}
		})
	}
}

func FuzzParseStage(f *testing.F) {
	for _, s := range []string{"waf:delay=450ms", "ratelimit:rate=100/s,window=1s", "uablock:patterns=[a,b]", "fault:headers={a: b}", "tls:handshakeDelay=normal:1s,2ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseStage(s)
		if err == nil && sc.Spec == nil {
			t.Fatal("no error and no spec")
		}
	})
}

func FuzzPathConfig(f *testing.F) {
	f.Add("boxes:\n  - stages:\n      - kind: waf\n        delay: 450ms\n")
	f.Add("seed: 1\nboxes:\n  - name: a\n    stages: [{kind: ratelimit, rate: 1/s}]\n")
	f.Add("boxes: [{stages: [{kind: link, latency: 1ms}, {kind: fault, paths: ['(']}]}]")
	f.Add("")
	f.Add("null")
	f.Fuzz(func(t *testing.T, src string) {
		cfg, err := ParsePathConfig("fuzz.yaml", []byte(src))
		if err == nil && len(cfg.Boxes) == 0 {
			t.Fatal("a decoded path has no boxes")
		}
	})
}
