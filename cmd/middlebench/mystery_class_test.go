package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/teach/mystery"
)

// builtBinary builds middlebench once for the tests that run it as
// processes (students are processes, and a kill -9 needs one).
var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "middlebench-bin-")
	if err != nil {
		return "", err
	}
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

// Thirty students answer with the CLI (thirty processes) while thirty
// answer through the dashboard's endpoint, all at once: sixty answers are
// kept, each once. (Before answers were one file each, 30 concurrent CLI
// answers kept 14.)
func TestSixtyConcurrentAnswersAreKeptOnce(t *testing.T) {
	bin := binary(t)
	sm := serveMystery(t, bin, "--seed", "3", "--level", "one")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 30 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			out, err := exec.CommandContext(ctx, bin, "mystery", "answer", "--state-dir", sm.stateDir, "--id", sm.id,
				"--name", fmt.Sprintf("cli-%02d", i), "path-latency").CombinedOutput()
			if err != nil || !strings.Contains(string(out), "recorded for") {
				errs <- fmt.Errorf("cli-%02d: %v: %s", i, err, out)
			}
		}()
		go func() {
			defer wg.Done()
			status, body, err := postAnswer(ctx, sm.dash, fmt.Sprintf("web-%02d", i), "server-slow")
			if err != nil || status != http.StatusOK {
				errs <- fmt.Errorf("web-%02d: %d %v: %s", i, status, err, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	kept := keptByName(t, sm.stateDir, sm.id)
	total := 0
	for i := range 30 {
		for _, name := range []string{fmt.Sprintf("cli-%02d", i), fmt.Sprintf("web-%02d", i)} {
			if kept[name] != 1 {
				t.Errorf("%s kept %d times, want once", name, kept[name])
			}
			total += kept[name]
		}
	}
	if len(kept) != 60 || total != 60 {
		t.Fatalf("%d names, %d answers kept; want 60 and 60", len(kept), total)
	}
	// Someone else posting under a name the web gave out is refused.
	if status, body, _ := postAnswer(ctx, sm.dash, "web-07", "rate-limited"); status != http.StatusConflict {
		t.Errorf("another's name: %d %s, want 409", status, body)
	}
	t.Logf("60 of 60 kept, each once (mystery %s)", sm.id)
}

// The mystery and students' processes are killed with SIGKILL while the
// answers pour in: every answer that was acknowledged (a 200 from the
// endpoint, "recorded" and exit 0 from the CLI) is kept, and every kept
// file is whole.
func TestKillDuringAnsweringKeepsAcknowledgedAnswers(t *testing.T) {
	bin := binary(t)
	sm := serveMystery(t, bin, "--seed", "4", "--level", "one")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var acked sync.Map
	var nAcked atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 6 {
		wg.Add(1)
		go func() { // web students, answering until the mystery dies
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("web-%d-%d", w, i)
				status, _, err := postAnswer(ctx, sm.dash, name, "path-latency")
				if err != nil {
					return // the mystery was killed
				}
				if status == http.StatusOK {
					acked.Store(name, true)
					nAcked.Add(1)
				}
			}
		}()
	}
	var cliProcs []*exec.Cmd
	var cliMu sync.Mutex
	for w := range 4 {
		wg.Add(1)
		go func() { // CLI students, some killed mid-answer
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("cli-%d-%d", w, i)
				c := exec.CommandContext(ctx, bin, "mystery", "answer", "--state-dir", sm.stateDir, "--id", sm.id, "--name", name, "server-slow")
				var out strings.Builder
				c.Stdout = &out
				if err := c.Start(); err != nil {
					return
				}
				cliMu.Lock()
				cliProcs = append(cliProcs, c)
				cliMu.Unlock()
				if err := c.Wait(); err == nil && strings.Contains(out.String(), "recorded for") {
					acked.Store(name, true)
					nAcked.Add(1)
				}
			}
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for nAcked.Load() < 40 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d answers acknowledged in 60 s", nAcked.Load())
		}
		time.Sleep(time.Millisecond)
	}
	_ = sm.cmd.Process.Signal(syscall.SIGKILL)
	cliMu.Lock()
	for _, c := range cliProcs {
		_ = c.Process.Signal(syscall.SIGKILL)
	}
	cliMu.Unlock()
	close(stop)
	wg.Wait()
	kept := keptByName(t, sm.stateDir, sm.id)
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if kept[k.(string)] != 1 {
			t.Errorf("%s was acknowledged, kept %d times", k, kept[k.(string)])
		}
		return true
	})
	t.Logf("%d answers acknowledged before the kill, %d kept (a kept one not acknowledged was written just before its process died)", n, len(kept))
}

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

// A class of thirty against one keyed mystery: each student sends a few
// requests through the path with a plain HTTP client, then answers — the
// even ones through the dashboard's endpoint, the odd ones with the CLI —
// and every fifth revises a first wrong answer. The teacher's reveal (the
// printed command, with the key) scores each student's last answer: the
// expected tally comes from what the students were told to answer.
func TestClassOfThirty(t *testing.T) {
	bin := binary(t)
	// A fixed key, so that the class meets the same mystery every run:
	// under it seed 9, level one, is a 150 ms WAF.
	key := mystery.ClassKey(strings.Repeat("c1a55", 8))
	sm := serveMysteryKeyed(t, bin, key, "--seed", "9", "--level", "one")
	m, err := mystery.DrawKeyed(9, mystery.LevelOne, key)
	if err != nil || m.Parts[0].Cause != "waf" {
		t.Fatalf("the fixed key's seed 9 drew %+v (%v); this test expects the WAF", m.Parts, err)
	}
	right := m.Parts[0].Codes[0]
	entry := regexp.MustCompile(`aim here:\s+(\S+)`).FindStringSubmatch(sm.firstPage)
	if entry == nil {
		t.Fatalf("no entry on the first screen:\n%s", sm.firstPage)
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: insecureTLS()}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	var sent atomic.Int64
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("student-%02d", i)
			for range 10 {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, entry[1]+"/", nil)
				resp, err := client.Do(req)
				if err != nil {
					errs <- fmt.Errorf("%s: %v", name, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				sent.Add(1)
			}
			answers := []string{right}
			if i%3 == 0 {
				answers = []string{"healthy"}
			}
			if i%5 == 0 {
				answers = append([]string{"healthy"}, answers...)
			}
			var token string
			for _, code := range answers {
				if i%2 == 0 {
					form := url.Values{"name": {name}, "codes": {code}}
					if token != "" {
						form.Set("token", token)
					}
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, sm.dash+"answer", strings.NewReader(form.Encode()))
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						errs <- fmt.Errorf("%s: %v", name, err)
						return
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						errs <- fmt.Errorf("%s: %d %s", name, resp.StatusCode, b)
						return
					}
					if m := regexp.MustCompile(`token: ([0-9a-f]+)`).FindSubmatch(b); m != nil {
						token = string(m[1])
					}
					continue
				}
				out, err := exec.CommandContext(ctx, bin, "mystery", "answer", "--state-dir", sm.stateDir, "--id", sm.id, "--name", name, code).CombinedOutput()
				if err != nil {
					errs <- fmt.Errorf("%s: %v: %s", name, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	wantPerfect, wantGiven := 0, 0
	for i := range 30 {
		if i%3 != 0 {
			wantPerfect++
		}
		wantGiven++
		if i%5 == 0 {
			wantGiven++
		}
	}
	// The record (and its sealed counters) is saved each second: wait for
	// one that saw every request, then reveal as the teacher would.
	deadline := time.Now().Add(30 * time.Second)
	var out []byte
	for {
		out, err = exec.Command(bin, printedCommand(t, sm.firstPage, "reveal", nil)...).CombinedOutput()
		if err != nil {
			t.Fatalf("reveal: %v\n%s", err, out)
		}
		if strings.Contains(string(out), fmt.Sprintf("(%d requests", sent.Load())) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{
		fmt.Sprintf("(%d requests", sent.Load()),
		fmt.Sprintf("answers (30 students, %d answers given)", wantGiven),
		fmt.Sprintf("%d of 30 answers named every cause and nothing else", wantPerfect),
		"student-00: healthy", "(revision 2; the earlier ones are kept)", "student-29: " + right,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("reveal lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("reveal:\n%s", out)
	}
	// The same reveal as a page for the projector; without the key no
	// page is written.
	page := filepath.Join(t.TempDir(), "reveal.html")
	args := append(printedCommand(t, sm.firstPage, "reveal", nil), "--html", page)
	noKey := slices.Clone(args)
	i := slices.Index(noKey, "--key-file")
	noKey = append(noKey[:i], noKey[i+2:]...)
	if out, err := exec.Command(bin, noKey...).CombinedOutput(); err == nil {
		t.Errorf("reveal --html without the key: %s", out)
	}
	if _, err := os.Stat(page); err == nil {
		t.Errorf("reveal --html without the key wrote %s", page)
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("reveal --html: %v\n%s", err, out)
	}
	html, _ := os.ReadFile(page)
	for _, want := range []string{fmt.Sprintf("%d of 30 named every cause and nothing else", wantPerfect), "student-29", m.Parts[0].Cause} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the reveal page lacks %q", want)
		}
	}
	t.Logf("30 students, %d requests through %s (%s), %d answers; the reveal's tally: %d perfect", sent.Load(), sm.id, m.Parts[0].Cause, wantGiven, wantPerfect)
}

// insecureTLS trusts the mystery's self-signed certificate, as students
// are told to (k6 --insecure-skip-tls-verify, curl -k).
func insecureTLS() *tls.Config { return &tls.Config{InsecureSkipVerify: true} }
