package mystery

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/load"
)

// settled waits until the path has no open connection (a byte cap counts
// a connection's waits when it closes) and returns the key then.
func settled(t *testing.T, r *Running) Key {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := r.Counters()
		if err != nil {
			t.Fatal(err)
		}
		if c.OpenConnections() == 0 {
			return r.M.KeyFrom(c)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%g connections still open 10 s after the load ended", c.OpenConnections())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runExercise serves m and drives it with the engine: vus for d.
func runExercise(t *testing.T, m *Mystery, vus int, d time.Duration) (*Running, *load.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	r, err := Start(ctx, m, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	res, err := load.Run(ctx, LoadConfig(r.URL(), vus, d), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

// For every level and 20 seeds, the key says what the stages' counters
// say, checked against what the mystery configured and what the engine
// saw on its side: the requests the path counted are the engine's, a
// delay is never shorter than the one drawn, a limiter's rejections are
// the engine's 429s, a blocker's its 403s, each cause acted and no decoy
// did.
func TestKeyMatchesCountersForEveryLevel(t *testing.T) {
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	// The delays are waits, not work: a few mysteries at once; a CPU-bound
	// server takes the machine's cores and runs alone.
	sem := make(chan struct{}, 6)
	var cpu sync.RWMutex
	for _, l := range Levels() {
		for seed := 1; seed <= seeds; seed++ {
			m, err := Draw(uint64(seed), l)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%s/%d", l, seed), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				if slices.ContainsFunc(m.Parts, func(p Part) bool { return p.Cause == "cpu-bound" }) {
					cpu.Lock()
					defer cpu.Unlock()
				} else {
					cpu.RLock()
					defer cpu.RUnlock()
				}
				r, res := runExercise(t, m, ExerciseVUs, time.Second)
				k := settled(t, r)
				statuses := res.Document().Statuses
				if k.Requests != float64(res.Requests) {
					t.Errorf("key counts %g requests, the engine sent %d", k.Requests, res.Requests)
				}
				for _, line := range k.Lines {
					checkLine(t, line, statuses)
				}
				checkEvenFault(t, r, m)
			})
		}
	}
}

// checkEvenFault: a mystery's fault device holds exactly floor(n × p /
// 100) of the n requests it saw, so a short exercise never misses it.
func checkEvenFault(t *testing.T, r *Running, m *Mystery) {
	t.Helper()
	for _, p := range m.Parts {
		if p.Cause != "fault-delay" {
			continue
		}
		c, err := r.Counters()
		if err != nil {
			t.Fatal(err)
		}
		s := c.stage(whereEdge, "fault")
		seen, held := num(s, "seen"), stat(s, "delay", "count")
		if want := math.Floor(seen * p.d.rate / 100); held != want {
			t.Errorf("fault-delay held %g of %g requests at %g %%, want %g", held, seen, p.d.rate, want)
		}
	}
}

func checkLine(t *testing.T, l KeyLine, statuses map[string]int64) {
	t.Helper()
	what := fmt.Sprintf("%s (%s, decoy %v): %v", l.Cause, l.What, l.Decoy, l.Facts)
	if l.Acted == l.Decoy {
		t.Errorf("%s: acted %v", what, l.Acted)
	}
	switch l.Cause {
	case "tls-delay", "waf", "fault-delay", "link-latency":
		if l.PerEvent < l.d.ms {
			t.Errorf("%s: %.3f ms per event, below the %g ms drawn", what, l.PerEvent, l.d.ms)
		}
	case "slow-server", "cpu-bound":
		if own := l.PerEvent + baseWorkMs; own < l.d.ms {
			t.Errorf("%s: the server reports %.3f ms, below the %g ms drawn", what, own, l.d.ms)
		}
	case "ratelimit":
		if got := float64(statuses[strconv.Itoa(429)]); l.Failed != got {
			t.Errorf("%s: key says %g rejected, the engine saw %g 429s", what, l.Failed, got)
		}
	case "uablock":
		if got := float64(statuses[strconv.Itoa(403)]); l.Failed != got || got == 0 {
			t.Errorf("%s: key says %g blocked, the engine saw %g 403s", what, l.Failed, got)
		}
	}
}
