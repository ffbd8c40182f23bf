package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/proxy"
	"github.com/middlebench/middlebench/wire"
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

// A run through a wire starts k6 in the wire's generator namespace: the
// process started through genEnter is in the namespace the wire named
// (the same inode as /run/netns/NAME), and this process is not.
func TestK6StartsInTheWiresNamespace(t *testing.T) {
	ctx := context.Background()
	tgt, err := startLocal(ctx, fakeserver.Config{}, &proxy.PathConfig{Wire: &wire.Config{}, Boxes: []proxy.BoxConfig{{Name: "edge"}}}, false)
	if errors.Is(err, wire.ErrUnavailable) {
		t.Skipf("no wire on this machine: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tgt.close(); err != nil {
			t.Error(err)
		}
	})
	kc := k6CommandFor(infoOf(tgt), "run.js")
	if kc.Netns == "" || kc.Netns != tgt.wire().Gen().Name() {
		t.Fatalf("Netns = %q, want the wire's generator namespace %q", kc.Netns, tgt.wire().Gen().Name())
	}
	var st syscall.Stat_t
	if err := syscall.Stat(filepath.Join("/run/netns", kc.Netns), &st); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("net:[%d]", st.Ino)
	enter, err := genEnter(tgt, kc.Netns)
	if err != nil {
		t.Fatal(err)
	}
	nsOf := func(enter func(func() error) error) string {
		var out bytes.Buffer
		cmd := exec.Command("readlink", "/proc/self/ns/net")
		cmd.Stdout = &out
		if err := enter(cmd.Start); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	if got := nsOf(enter); got != want {
		t.Errorf("the started process is in %s, want the wire's %s", got, want)
	}
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := genEnter(tgt, "")
	if got := nsOf(plain); got != own || got == want {
		t.Errorf("without a namespace the process is in %s, want this process's %s", got, own)
	}
}

// A namespace this process does not hold is refused, not ignored.
func TestK6RefusesANamespaceItCannotEnter(t *testing.T) {
	tgt := &childTarget{info: serveInfo{Entry: "http://10.201.0.2:1", Gen: "mbw-1-1-gen"}}
	if _, err := genEnter(tgt, "mbw-1-1-gen"); err == nil || !strings.Contains(err.Error(), "mbw-1-1-gen") {
		t.Fatalf("genEnter = %v, want an error naming the namespace", err)
	}
}
