package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/mystery"
)

// binDir holds the binary builtBinary built; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// builtBinary builds middlebench once for the tests that run it as
// processes (students are processes, and a kill -9 needs one).
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "middlebench-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "middlebench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs it as processes")
	}
	bin, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// servedMystery is a `middlebench mystery` process and what its first
// screen said.
type servedMystery struct {
	cmd       *exec.Cmd
	id, dash  string
	stateDir  string
	keyFile   string
	firstPage string
}

var (
	idLine   = regexp.MustCompile(`(?m)^mystery (\S+) \(level`)
	dashLine = regexp.MustCompile(`dashboard: (http://127\.0\.0\.1:\d+/)`)
)

// serveMystery starts a keyed mystery with a dashboard and waits (bounded)
// until both its first screen and its dashboard line were printed.
func serveMystery(t *testing.T, bin string, args ...string) *servedMystery {
	t.Helper()
	return serveMysteryKeyed(t, bin, "", args...)
}

// serveMysteryKeyed is serveMystery with the teacher's key file written
// first ("" : the mystery creates one).
func serveMysteryKeyed(t *testing.T, bin string, key mystery.ClassKey, args ...string) *servedMystery {
	t.Helper()
	dir := t.TempDir()
	sm := &servedMystery{stateDir: dir, keyFile: filepath.Join(t.TempDir(), "teacher", "class.key")}
	if key != "" {
		os.MkdirAll(filepath.Dir(sm.keyFile), 0o700)
		if err := os.WriteFile(sm.keyFile, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sm.cmd = exec.Command(bin, append([]string{"mystery", "--state-dir", dir, "--key-file", sm.keyFile,
		"--dashboard", "127.0.0.1:0", "--duration", "2m"}, args...)...)
	out, err := sm.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sm.cmd.Stderr = sm.cmd.Stdout
	if err := sm.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.cmd.Process.Kill(); sm.cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var page strings.Builder
	deadline := time.After(30 * time.Second)
	for sm.id == "" || sm.dash == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("mystery exited before it served:\n%s", page.String())
			}
			page.WriteString(l + "\n")
			if m := idLine.FindStringSubmatch(l); m != nil {
				sm.id = m[1]
			}
			if m := dashLine.FindStringSubmatch(l); m != nil {
				sm.dash = m[1]
			}
		case <-deadline:
			t.Fatalf("no id and dashboard within 30 s:\n%s", page.String())
		}
	}
	sm.firstPage = page.String()
	go func() { // keep draining
		for range lines {
		}
	}()
	return sm
}

func postAnswer(ctx context.Context, dash, name, codes string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dash+"answer", strings.NewReader(url.Values{"name": {name}, "codes": {codes}}.Encode()))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b), nil
}

// keptByName reads every kept answer and counts each name's.
func keptByName(t *testing.T, dir, id string) map[string]int {
	t.Helper()
	all, err := (&mystery.State{Dir: dir}).Answers(id)
	if err != nil {
		t.Fatalf("reading the answers: %v", err)
	}
	n := map[string]int{}
	for _, a := range all {
		n[a.Name]++
	}
	return n
}
