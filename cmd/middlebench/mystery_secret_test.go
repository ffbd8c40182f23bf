package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/mystery"
)

// printedCommand finds the line of the first screen that runs `middlebench
// mystery VERB` and splits it into arguments (the test's paths have no
// spaces), with the placeholders filled.
func printedCommand(t *testing.T, page, verb string, fill map[string]string) []string {
	t.Helper()
	for _, l := range strings.Split(page, "\n") {
		f := strings.Fields(l)
		if len(f) > 3 && f[0] == "middlebench" && f[1] == "mystery" && f[2] == verb {
			var out []string
			for _, a := range f[1:] {
				if v, ok := fill[a]; ok {
					a = v
				}
				out = append(out, a)
			}
			return out
		}
	}
	t.Fatalf("the first screen prints no `middlebench mystery %s` line:\n%s", verb, page)
	return nil
}

// A keyed mystery keeps its secret: neither its first screen, nor any file
// in its state dir, names a device or holds the key; the answer and
// reveal commands it prints work as printed (state dir and id included);
// reveal without the key is refused and prints nothing of the devices,
// with a wrong key too; with the key it prints the answer key and scores.
func TestKeyedMysteryKeepsItsSecret(t *testing.T) {
	bin := binary(t)
	sm := serveMystery(t, bin, "--seed", "7", "--level", "two")
	key, err := mystery.ReadClassKey(sm.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	// What the key draws, known to the test only through the key.
	m, err := mystery.DrawKeyed(7, mystery.LevelTwo, key)
	if err != nil || m.ID != sm.id {
		t.Fatalf("the key draws %v (%v); the mystery says %s", m, err, sm.id)
	}
	var secrets []string
	for _, p := range m.Parts {
		secrets = append(secrets, p.Cause, p.What)
		if p.Stage != "" {
			secrets = append(secrets, p.Stage)
		}
	}
	secrets = append(secrets, string(key))
	leaks := func(what, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q:\n%s", what, s, text)
			}
		}
	}
	leaks("the first screen", sm.firstPage)

	answer := printedCommand(t, sm.firstPage, "answer", map[string]string{"YOURNAME": "ada", "CODE...": "path-latency"})
	if out, err := exec.Command(bin, answer...).CombinedOutput(); err != nil || !strings.Contains(string(out), "recorded for ada") {
		t.Fatalf("the printed answer command %v: %v\n%s", answer, err, out)
	}
	reveal := printedCommand(t, sm.firstPage, "reveal", nil)
	if !slices.Contains(reveal, "--key-file") {
		t.Fatalf("the teacher's reveal line has no --key-file: %v", reveal)
	}
	// The record is saved every second: wait (bounded) for one with
	// counters, then read every file the students can.
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(sm.stateDir, "mystery-"+sm.id+".json"))
		if strings.Contains(string(b), "sealedCounters") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sealed counters in the record after 20 s: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	filepath.WalkDir(sm.stateDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			leaks(p, string(b))
		}
		return nil
	})

	noKey := slices.Clone(reveal)
	i := slices.Index(noKey, "--key-file")
	noKey = append(noKey[:i], noKey[i+2:]...)
	out, err := exec.Command(bin, noKey...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs --key-file") {
		t.Errorf("reveal without the key: %v\n%s", err, out)
	}
	leaks("reveal without the key", string(out))
	wrong := filepath.Join(t.TempDir(), "other.key")
	os.WriteFile(wrong, []byte(mystery.NewClassKey()+"\n"), 0o600)
	out, err = exec.Command(bin, append(noKey, "--key-file", wrong)...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "does not open this mystery") {
		t.Errorf("reveal with another key: %v\n%s", err, out)
	}
	leaks("reveal with another key", string(out))

	out, err = exec.Command(bin, reveal...).CombinedOutput()
	if err != nil {
		t.Fatalf("reveal with the key: %v\n%s", err, out)
	}
	for _, want := range []string{"the answer key", m.Parts[0].Cause, m.Parts[1].Cause, "ada: path-latency"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("reveal with the key lacks %q:\n%s", want, out)
		}
	}
}
