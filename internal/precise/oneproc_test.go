package precise

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
)

// TestOneProcBusy is a generator pinned to one CPU (GOMAXPROCS 1) whose
// goroutines keep that P busy, as E7's VUs do with their 2 ms spins: a
// sleep may wake late by the spin that holds the P at its deadline, not
// by more, and while the sleeper waits for its next deadline the P goes on
// running the spinners. Measured before the fix: the waiting thread's
// wake-up waited in the global run queue behind every runnable spinner
// (p50 +18 ms), and its next wait, a blocking ppoll, held the one P until
// sysmon retook it (up to two of its 10 ms ticks), so the spinners stood
// still.
func TestOneProcBusy(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const spin = 2 * time.Millisecond
	const spinners = 8
	// The woken sleeper goes first in line, so it waits for the spin in
	// progress only; the race detector's scheduler may queue it behind
	// every spinner (raceScheduler).
	bound := spin
	if raceScheduler {
		bound = (spinners + 1) * spin
	}
	s := NewSleeper()
	defer s.Close()
	realtimetest.Rounds(t, 5, func(r *realtimetest.Round) {
		// One P: at most one spinner runs at a time, so the gaps between
		// one spin's end and the next one's start are the time the P did
		// something else (the sleeper, the loop, the runtime) or stood still.
		var stop, measuring atomic.Bool
		var lastEnd, stood atomic.Int64 // ns since base
		base := time.Now()
		var wg sync.WaitGroup
		for range spinners {
			wg.Go(func() {
				for !stop.Load() {
					t0 := time.Now()
					if gap := int64(t0.Sub(base)) - lastEnd.Load(); measuring.Load() && gap > 0 {
						stood.Add(gap)
					}
					for time.Since(t0) < spin {
					}
					lastEnd.Store(int64(time.Since(base)))
					runtime.Gosched()
				}
			})
		}
		measuring.Store(true)
		start := time.Now()
		var late []time.Duration
		for i := range 20 {
			d := 5*time.Millisecond + time.Duration(i)*310*time.Microsecond
			t0 := time.Now()
			if err := s.Sleep(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			late = append(late, time.Since(t0)-d)
		}
		wall := time.Since(start)
		stop.Store(true)
		wg.Wait()
		slices.Sort(late)
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		r.Band("p50 wake error (ms)", ms(late[len(late)/2]), -ms(fireAhead), ms(bound))
		// The machine's other processes may hold the CPU for a few ms
		// more in any round: the 90th percentile, not the last.
		r.Band("p90 wake error (ms)", ms(late[len(late)*9/10]), -ms(fireAhead), ms(bound)+1)
		// The P may leave the spinners only while the sleeping goroutine
		// and the loop run (microseconds a wake-up).
		r.Band("share of the wall time no spinner ran", float64(stood.Load())/float64(wall), 0, 0.1)
	})
}
