package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

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
