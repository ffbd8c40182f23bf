package pace

import (
	"context"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/units"
)

func TestBurst(t *testing.T) {
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
		if got := Burst(tt.rate, tt.set); got != tt.want {
			t.Errorf("Burst(%v, %v) = %d, want %d", tt.rate, tt.set, got, tt.want)
		}
	}
}

// TestBytesIsExactOnFakeClock writes 50 MiB in 32 KiB copies through a
// 10 MiB/s shaper: the clock must read 5 s less one burst's worth.
func TestBytesIsExactOnFakeClock(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	fc := clock.NewFake(start)
	s := NewBytes(10<<20, 0, fc)
	now := start
	const total = 50 << 20
	for sent := 0; sent < total; {
		n := min(32<<10, total-sent)
		for left := n; left > 0; {
			k := min(left, s.burst)
			now = now.Add(s.Delay(now, k)) // wait exactly as long as asked
			left -= k
		}
		sent += n
	}
	elapsed := now.Sub(start)
	want := 5*time.Second - time.Duration(float64(s.burst)/float64(10<<20)*float64(time.Second))
	within(t, "time to send 50 MiB at 10 MiB/s", elapsed, want, time.Microsecond)
}

// TestBytesWaitOnFakeClock checks the waiting side: wait blocks until the
// fake clock has moved far enough.
func TestBytesWaitOnFakeClock(t *testing.T) {
	fc := clock.NewFake(time.Unix(0, 0))
	s := NewBytes(1000, 500, fc) // 1000 B/s, burst 500, pieces of 125
	done := make(chan time.Duration, 1)
	go func() {
		d, _ := s.Wait(context.Background(), 1500) // 500 at once, then 8 × 125 at 0.125 s each
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

func within(t *testing.T, name string, got, want, tol time.Duration) {
	t.Helper()
	t.Logf("%s = %v (want %v ± %v)", name, got, want, tol)
	if got < want-tol || got > want+tol {
		t.Errorf("%s = %v, want %v ± %v", name, got, want, tol)
	}
}

func TestNilLetsEverythingThrough(t *testing.T) {
	var p *Bytes
	if d, err := p.Wait(context.Background(), 1<<20); d != 0 || err != nil || p.Piece(4096) != 4096 {
		t.Fatalf("nil pacer: waited %v (%v), piece %d", d, err, p.Piece(4096))
	}
	if NewBytes(0, 0, clock.Real{}) != nil {
		t.Fatal("a zero rate must make no pacer")
	}
}

// TestCancelGivesTheTokensBack: a wait cut by its context returns its
// reservation, so the next one is not delayed by bytes that never passed.
func TestCancelGivesTheTokensBack(t *testing.T) {
	fc := clock.NewFake(time.Unix(0, 0))
	p := NewBytes(1000, 400, fc) // 1000 B/s, bucket 400, pieces of 100
	if d, _ := p.Wait(context.Background(), 400); d != 0 {
		t.Fatalf("the full bucket waited %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := p.Wait(ctx, 100); done <- err }()
	if !fc.WaitPending(1, 5*time.Second) {
		t.Fatal("the wait never reached its timer")
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled wait returned no error")
	}
	if d := p.Delay(fc.Now(), 100); d != 100*time.Millisecond {
		t.Fatalf("after the cancel the next 100 B wait %v, want 100ms (the cancelled ones given back)", d)
	}
}
