package merge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The bound of each missing segment runs from the later of the gate's
// opening and its own last start request.
func TestOverdue(t *testing.T) {
	gate := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sec := func(n int) time.Time { return gate.Add(time.Duration(n) * time.Second) }
	for _, c := range []struct {
		name     string
		due      time.Duration
		gateAt   time.Time
		started  map[int]time.Time
		have     []int
		now      time.Time
		late     int
		from     time.Time
		next     time.Time
		expected string
	}{
		{name: "gate closed: no bound", due: 10 * time.Second, started: map[int]time.Time{0: sec(-5)}, now: sec(100), late: -1},
		{name: "no due: no bound", gateAt: gate, now: sec(100), late: -1},
		{name: "within the bound", due: 10 * time.Second, gateAt: gate, started: map[int]time.Time{0: sec(-3), 1: sec(0)},
			now: sec(9), late: -1, next: sec(10)},
		{name: "past it, from the gate", due: 10 * time.Second, gateAt: gate, started: map[int]time.Time{0: sec(-3), 1: sec(0)},
			have: []int{0}, now: sec(10), late: 1, from: gate},
		{name: "a rerun asked later: its bound is a whole run later", due: 10 * time.Second, gateAt: gate,
			started: map[int]time.Time{0: sec(0), 1: sec(6), 2: sec(0)}, have: []int{0, 2}, now: sec(12), late: -1, next: sec(16)},
		{name: "the first late index, the others' next bound ignored", due: 10 * time.Second, gateAt: gate,
			started: map[int]time.Time{0: sec(0), 1: sec(0), 2: sec(30)}, now: sec(11), late: 0, from: gate},
		{name: "every document in", due: 10 * time.Second, gateAt: gate, have: []int{0, 1, 2}, now: sec(100), late: -1},
	} {
		d := dueState{due: c.due, gateAt: c.gateAt, started: c.started}
		have := func(i int) bool {
			for _, h := range c.have {
				if h == i {
					return true
				}
			}
			return false
		}
		late, from, next := d.overdue(c.now, have, 3)
		if late != c.late || !from.Equal(c.from) || (late < 0 && !next.Equal(c.next)) {
			t.Errorf("%s: late %d from %v next %v, want %d from %v next %v", c.name, late, from, next, c.late, c.from, c.next)
		}
	}
}

// Both segments pass the gate, one sends its document, the other never
// does: the merge fails once the bound has passed, naming the silent
// segment, long before --wait.
func TestReceiveFailsWhenAStartedSegmentIsSilent(t *testing.T) {
	const due, wait = 300 * time.Millisecond, time.Minute
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Receive(context.Background(), ReceiveOptions{Options: Options{Stdout: io.Discard}, Listen: "127.0.0.1:0",
			Expect: 2, Wait: wait, Due: due, Ready: func(a string) { ready <- a }})
		done <- err
	}()
	base := "http://" + <-ready
	started := make(chan error, 2)
	for i := range 2 {
		go func() {
			resp, err := http.Get(fmt.Sprintf("%s/start/%d", base, i))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = errors.New(resp.Status)
				}
			}
			started <- err
		}()
	}
	for range 2 {
		if err := <-started; err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	gateOpen := time.Now() // the gate opened before both answers
	if code, msg := put(t, base+"/results/0", encodeDoc(t, partDoc(t, "0:1/2", time.Now(), []time.Duration{time.Millisecond}, nil))); code != http.StatusNoContent {
		t.Fatalf("PUT segment 0: %d %s", code, msg)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(wait / 2):
		t.Fatalf("no failure %s after the gate, with --results-due %s", wait/2, due)
	}
	var late *overdueError
	if !errors.As(err, &late) || late.index != 1 || !strings.Contains(err.Error(), "1 of 2 documents (missing: 1)") {
		t.Fatalf("err %v, want segment 1 overdue, 1 of 2 documents in", err)
	}
	if waited := time.Since(gateOpen); waited < due-50*time.Millisecond {
		t.Errorf("failed %s after the gate: before the bound %s", waited, due)
	}
}

// A segment that never reaches the gate keeps it closed: no bound runs,
// --wait decides; documents that arrive within the bound merge.
func TestReceiveDueOnlyAfterTheGate(t *testing.T) {
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Receive(context.Background(), ReceiveOptions{Options: Options{Stdout: io.Discard}, Listen: "127.0.0.1:0",
			Expect: 2, Wait: 400 * time.Millisecond, Due: 10 * time.Millisecond, Ready: func(a string) { ready <- a }})
		done <- err
	}()
	base := "http://" + <-ready
	short := &http.Client{Timeout: 100 * time.Millisecond}
	if resp, err := short.Get(base + "/start/0"); err == nil {
		resp.Body.Close()
		t.Fatalf("index 0 alone was answered %s", resp.Status)
	}
	err := <-done
	var late *overdueError
	if err == nil || errors.As(err, &late) || !strings.Contains(err.Error(), "after 400ms") {
		t.Errorf("err %v, want --wait's (the gate never opened)", err)
	}

	ready2 := make(chan string, 1)
	merged := make(chan error, 1)
	go func() {
		_, err := Receive(context.Background(), ReceiveOptions{Options: Options{Stdout: io.Discard}, Listen: "127.0.0.1:0",
			Expect: 1, Wait: time.Minute, Due: time.Minute, Ready: func(a string) { ready2 <- a }})
		merged <- err
	}()
	base = "http://" + <-ready2
	resp, err := http.Get(base + "/start/0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code, msg := put(t, base+"/results/0", encodeDoc(t, partDoc(t, "0:1", time.Now(), []time.Duration{time.Millisecond}, nil))); code != http.StatusNoContent {
		t.Fatalf("PUT: %d %s", code, msg)
	}
	if err := <-merged; err != nil {
		t.Errorf("a document within the bound: %v", err)
	}
	if _, err := Receive(context.Background(), ReceiveOptions{Expect: 1, Wait: time.Second, Due: -time.Second}); err == nil || !strings.Contains(err.Error(), "--results-due") {
		t.Errorf("a negative --results-due: %v", err)
	}
}
