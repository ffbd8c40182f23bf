package main

import (
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
	"testing"
	"time"

	"github.com/middlebench/middlebench/mystery"
)

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
