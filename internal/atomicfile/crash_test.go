package atomicfile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// childEnv makes the test binary a writer that starts a file and waits to
// be killed (TestStrayTempOfAKilledWriterIsCleaned).
const childEnv = "ATOMICFILE_TEST_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		f, err := Create(path)
		if err != nil {
			os.Exit(3)
		}
		f.WriteString("half of a document")
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Minute) // killed long before
		os.Exit(4)
	}
	os.Exit(m.Run())
}

// TestStrayTempOfAKilledWriterIsCleaned: a writer killed with SIGKILL
// mid-file leaves its temporary file; the next write of that file removes
// it (a stray ".res.json.tmp-*" was found beside the results), and never
// the temporary file of a writer still alive.
func TestStrayTempOfAKilledWriterIsCleaned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "res.json")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+path)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "writing\n" {
		child.Process.Kill()
		t.Fatalf("the writer said %q", line)
	}
	child.Process.Kill() // SIGKILL: no deferred Abort runs
	child.Wait()
	if strays := temps(t, dir); len(strays) != 1 {
		t.Fatalf("after the kill: temporary files %q, want the killed writer's one", strays)
	}

	live, err := Create(path) // a writer alive meanwhile (this process)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	if err := WriteBytes(path, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	assertContent(t, path, "whole")
	if strays := temps(t, dir); len(strays) != 1 || strays[0] != filepath.Base(live.Name()) {
		t.Errorf("after the next write: temporary files %q, want only the live writer's %s", strays, filepath.Base(live.Name()))
	}
}

func temps(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}
