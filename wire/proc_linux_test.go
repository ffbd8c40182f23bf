package wire

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/cpuburn"
	"github.com/middlebench/middlebench/internal/realtimetest"
)

// TestLineProcessEndsWithTheWire: with EnableLineProcess (TestMain) the
// delay line runs in a child, its line threads under SCHED_FIFO as root
// where it has two CPUs, whose counters the parent reads; Close ends the
// child.
func TestLineProcessEndsWithTheWire(t *testing.T) {
	w := startWire(t, Config{Link: Link{Latency: ms(1)}}, Options{})
	if w.remote == nil {
		t.Fatal("the delay line runs in this process: want its own (EnableLineProcess in TestMain)")
	}
	c := dial(t, w, serve(t, w, echo))
	pingOnce(t, c)
	c.Close()
	s := w.Stats()
	// Real-time as root with two CPUs or more (the line unpins itself).
	wantRT := os.Geteuid() == 0 && runtime.NumCPU() >= 2
	if !s.Process || s.Realtime != wantRT || s.Up.Passed == 0 || s.Down.Passed == 0 {
		t.Errorf("stats %+v: want the process's, realtime %v, packets both ways", s, wantRT)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if ps := w.remote.cmd.ProcessState; ps == nil || !ps.Success() {
		t.Errorf("the line's process after Close: %v, want exited 0", ps)
	}
}

// TestReleasesOnTimeUnderLoad: while goroutines of this process keep every
// P busy (an engine saturating the CPUs; 2 per P, so that the wire's spare
// Ps are taken too), a wire in its own process releases packets within
// 1 ms of their due time at p99. The same wire in this process is measured
// and logged alongside (the lateness the line process removes).
func TestReleasesOnTimeUnderLoad(t *testing.T) {
	late := func(opts Options) map[string]float64 {
		w := startWire(t, Config{Link: Link{Latency: ms(2)}}, opts)
		c := dial(t, w, serve(t, w, echo))
		defer c.Close()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range 2 * (runtime.GOMAXPROCS(0)) {
			wg.Go(func() {
				for ctx.Err() == nil {
					cpuburn.Burn(time.Millisecond)
				}
			})
		}
		for range 200 {
			pingOnce(t, c)
		}
		cancel()
		wg.Wait()
		s := w.Stats()
		t.Logf("own process %v, GOMAXPROCS %d, busy goroutines %d: released late up p50 %.3f p99 %.3f max %.3f ms; down p50 %.3f p99 %.3f max %.3f ms",
			s.Process, runtime.GOMAXPROCS(0), 2*runtime.GOMAXPROCS(0), s.Up.Late["med"], s.Up.Late["p(99)"], s.Up.Late["max"],
			s.Down.Late["med"], s.Down.Late["p(99)"], s.Down.Late["max"])
		return map[string]float64{"up": s.Up.Late["p(99)"], "down": s.Down.Late["p(99)"]}
	}
	late(Options{InProcess: true})
	// Each round a fresh wire; the bound is judged on the least disturbed
	// (realtimetest.Rounds): a disturbed round can take even the line
	// process over it.
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		p99 := late(Options{})
		for _, dir := range []string{"up", "down"} {
			r.Band(dir+": released late p99 (ms) with the line in its own process", p99[dir], 0, 1)
		}
	})
}
