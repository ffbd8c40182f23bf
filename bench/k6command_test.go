package bench

import (
	"strings"
	"testing"
)

func TestK6CommandLine(t *testing.T) {
	tests := []struct {
		name string
		info serveInfo
		want string
	}{
		{"plain", serveInfo{Entry: "http://127.0.0.1:8080"},
			"k6 run -e TARGET=http://127.0.0.1:8080 --summary-export=summary.json run.js"},
		{"tls", serveInfo{Entry: "https://127.0.0.1:8443"},
			"k6 run --insecure-skip-tls-verify -e TARGET=https://127.0.0.1:8443 --summary-export=summary.json run.js"},
		{"wire", serveInfo{Entry: "http://10.201.0.2:8080", Gen: "mbw-7-1-gen"},
			"ip netns exec mbw-7-1-gen k6 run -e TARGET=http://10.201.0.2:8080 --summary-export=summary.json run.js"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kc := k6CommandFor(tt.info, "run.js", "--summary-export=summary.json")
			if got := kc.shell("k6"); got != tt.want {
				t.Errorf("shell =\n  %s\nwant\n  %s", got, tt.want)
			}
			if kc.Netns != tt.info.Gen {
				t.Errorf("Netns = %q, want %q", kc.Netns, tt.info.Gen)
			}
		})
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"run.js":                "run.js",
		"/tmp/a b/run.js":       "'/tmp/a b/run.js'",
		"it's":                  `'it'\''s'`,
		"":                      "''",
		"json=/tmp/points.json": "json=/tmp/points.json",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// A namespace this process does not hold is refused, not ignored.
func TestK6RefusesANamespaceItCannotEnter(t *testing.T) {
	tgt := &childTarget{info: serveInfo{Entry: "http://10.201.0.2:1", Gen: "mbw-1-1-gen"}}
	if _, err := genEnter(tgt, "mbw-1-1-gen"); err == nil || !strings.Contains(err.Error(), "mbw-1-1-gen") {
		t.Fatalf("genEnter = %v, want an error naming the namespace", err)
	}
}
