package precise

import (
	"context"
	"math"
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
	// The baseline is the runtime's own timer (time.Sleep) in the same
	// round, its sleeps taken in turn with the Sleeper's: the machine's
	// other processes and the spinners hold both alike, so the Sleeper is
	// judged on what it adds. The woken sleeper goes first in line, as a
	// timer's goroutine does; the race detector's scheduler may queue
	// either behind every spinner (raceScheduler), so there the medians of
	// 20 draws may differ by half that queue.
	slack := time.Millisecond
	if raceScheduler {
		slack = spinners * spin / 2
	}
	s := NewSleeper()
	defer s.Close()
	realtimetest.Rounds(t, 5, func(r *realtimetest.Round) {
		// One P: at most one spinner runs at a time, so the gaps between
		// one spin's end and the next one's start are the time the P did
		// something else (a sleeper, the loop, the runtime) or stood
		// still. Another process taking the CPU mid-spin shows in no gap.
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
		var late [2][]time.Duration // the Sleeper's, time.Sleep's
		start := time.Now()
		for i := range 40 {
			kind := i % 2
			d := 5*time.Millisecond + time.Duration(i/2)*310*time.Microsecond
			t0 := time.Now()
			if kind == 0 {
				if err := s.Sleep(context.Background(), d); err != nil {
					t.Fatal(err)
				}
			} else {
				time.Sleep(d)
			}
			late[kind] = append(late[kind], time.Since(t0)-d)
		}
		wall := time.Since(start)
		stop.Store(true)
		wg.Wait()
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		pct := func(k, q int) time.Duration {
			slices.Sort(late[k])
			return late[k][len(late[k])*q/100]
		}
		r.Band("p50 wake error, Sleeper − time.Sleep (ms)", ms(pct(0, 50)-pct(1, 50)), math.Inf(-1), ms(slack))
		r.Band("p90 wake error, Sleeper − time.Sleep (ms)", ms(pct(0, 90)-pct(1, 90)), math.Inf(-1), ms(slack))
		r.Band("Sleeper's p50 wake error, not early (ms)", ms(pct(0, 50)), -ms(fireAhead), math.Inf(1))
		// The P may leave the spinners only while a sleeping goroutine and
		// the loop run (microseconds a wake-up).
		r.Band("share of the wall time no spinner ran", float64(stood.Load())/float64(wall), 0, 0.1)
	})
}
