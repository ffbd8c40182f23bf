package clock

import (
	"context"
	"testing"
	"time"
)

func TestFakeFiresInOrder(t *testing.T) {
	f := NewFake(time.Unix(100, 0))
	a, b, c := f.NewTimer(3*time.Second), f.NewTimer(time.Second), f.NewTimer(5*time.Second)
	f.Advance(4 * time.Second)
	gotB, gotA := <-b.C(), <-a.C()
	if !gotB.Equal(time.Unix(101, 0)) || !gotA.Equal(time.Unix(103, 0)) {
		t.Fatalf("fired at %v and %v", gotB, gotA)
	}
	select {
	case <-c.C():
		t.Fatal("timer at +5s fired at +4s")
	default:
	}
	if !c.Stop() || f.Pending() != 0 {
		t.Fatalf("Stop did not remove the pending timer")
	}
	if !f.Now().Equal(time.Unix(104, 0)) {
		t.Fatalf("now = %v", f.Now())
	}
}

func TestWaitOnFake(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() { done <- Wait(context.Background(), f, 450*time.Millisecond) }()
	if !f.WaitPending(1, 5*time.Second) {
		t.Fatal("waiter never reached its timer")
	}
	f.Advance(449 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("returned 1ms early")
	default:
	}
	f.Advance(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Wait(ctx, f, time.Hour); err == nil {
		t.Fatal("want the context's error")
	}
}
