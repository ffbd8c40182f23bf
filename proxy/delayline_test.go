package proxy

import (
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
)

func TestDueAtKeepsOrderWithoutSerializing(t *testing.T) {
	t0 := time.Unix(100, 0)
	ms := time.Millisecond
	tests := []struct {
		arrival time.Duration
		delay   time.Duration
		last    time.Duration
		want    time.Duration
	}{
		{0, 50 * ms, 0, 50 * ms},             // plain
		{0, 50 * ms, 50 * ms, 50 * ms},       // a burst: the second chunk leaves with the first
		{1 * ms, 40 * ms, 50 * ms, 50 * ms},  // jitter would reorder: held behind
		{10 * ms, 60 * ms, 50 * ms, 70 * ms}, // later arrival, later departure
		{100 * ms, 0, 50 * ms, 100 * ms},     // no delay
	}
	for _, tt := range tests {
		got := dueAt(t0.Add(tt.arrival), tt.delay, t0.Add(tt.last))
		if got.Sub(t0) != tt.want {
			t.Errorf("dueAt(+%v, %v, last +%v) = +%v, want +%v", tt.arrival, tt.delay, tt.last, got.Sub(t0), tt.want)
		}
	}
}

func TestDelayQueueOnFakeClock(t *testing.T) {
	t0 := time.Unix(100, 0)
	fc := clock.NewFake(t0)
	q := newDelayQueue(fc, 1<<20)
	for i := range 3 { // a 96 KiB burst at t0
		b := make([]byte, 32<<10)
		b[0] = byte(i)
		q.push(chunk{b: b, arrival: t0}, 50*time.Millisecond)
	}
	got := make(chan chunk, 3)
	go func() {
		for range 3 {
			c, ok, err := q.pop(nil)
			if !ok || err != nil {
				return
			}
			got <- c
		}
	}()
	if !fc.WaitPending(1, 5*time.Second) {
		t.Fatal("pop never waited")
	}
	fc.Advance(49 * time.Millisecond)
	select {
	case <-got:
		t.Fatal("a chunk left 1 ms early")
	case <-time.After(20 * time.Millisecond):
	}
	fc.Advance(time.Millisecond)
	for i := range 3 {
		select {
		case c := <-got:
			if c.b[0] != byte(i) {
				t.Fatalf("chunk %d came out as %d", i, c.b[0])
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("chunk %d not released at +50ms: the burst was serialized", i)
		}
	}
	// A deadline in the past ends a pop at once.
	q.push(chunk{b: []byte("x"), arrival: fc.Now()}, time.Hour)
	if _, _, err := q.pop(func() time.Time { return t0 }); err == nil {
		t.Fatal("want a deadline error")
	}
	q.close()
}
