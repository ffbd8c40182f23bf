package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/middlebench/middlebench/proxy/clock"
	"github.com/middlebench/middlebench/units"
)

func TestBurstFor(t *testing.T) {
	for _, tt := range []struct {
		rate units.ByteRate
		set  units.Size
		want int
	}{
		{10 << 20, 0, 64 << 10}, // 10 MiB/s: 10 ms = 104 KiB, capped at 64 KiB
		{1 << 20, 0, 10485},     // 1 MiB/s: 10 ms
		{8 << 10, 0, 512},       // 8 KiB/s: floor
		{1 << 20, 4096, 4096},   // set
	} {
		if got := burstFor(tt.rate, tt.set); got != tt.want {
			t.Errorf("burstFor(%v, %v) = %d, want %d", tt.rate, tt.set, got, tt.want)
		}
	}
}

// TestShaperIsExactOnFakeClock writes 50 MiB in 32 KiB copies through a
// 10 MiB/s shaper: the clock must read 5 s less one burst's worth.
func TestShaperIsExactOnFakeClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	fc := clock.NewFake(start)
	s := newShaper(10<<20, 0, fc)
	now := start
	const total = 50 << 20
	for sent := 0; sent < total; {
		n := min(32<<10, total-sent)
		for left := n; left > 0; {
			k := min(left, s.burst)
			now = now.Add(s.delay(now, k)) // wait exactly as long as asked
			left -= k
		}
		sent += n
	}
	elapsed := now.Sub(start)
	want := 5*time.Second - time.Duration(float64(s.burst)/float64(10<<20)*float64(time.Second))
	within(t, "time to send 50 MiB at 10 MiB/s", elapsed, want, time.Microsecond)
}

// TestShaperWaitOnFakeClock checks the waiting side: wait blocks until the
// fake clock has moved far enough.
func TestShaperWaitOnFakeClock(t *testing.T) {
	fc := clock.NewFake(time.Unix(0, 0))
	s := newShaper(1000, 500, fc) // 1000 B/s, burst 500, pieces of 125
	done := make(chan time.Duration, 1)
	go func() {
		d, _ := s.wait(context.Background(), 1500) // 500 at once, then 8 × 125 at 0.125 s each
		done <- d
	}()
	for i := range 8 {
		if !fc.WaitPending(1, 5*time.Second) {
			t.Fatalf("wait %d never reached its timer", i)
		}
		fc.Advance(125 * time.Millisecond)
	}
	if d := <-done; d != time.Second {
		t.Fatalf("waited %v, want 1s", d)
	}
}
