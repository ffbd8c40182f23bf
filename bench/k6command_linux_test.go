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
