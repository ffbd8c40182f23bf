package wire

import (
	"errors"
	"io"
	"sync"
	"testing"
	"time"
)

// fakeRequest is a request whose opening and closing a test sees.
type fakeRequest struct {
	mu           sync.Mutex
	opened, shut int
	openErr      error
	openedSignal chan struct{}
}

func (f *fakeRequest) open() (io.Closer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.openedSignal <- struct{}{} }()
	if f.openErr != nil {
		return nil, f.openErr
	}
	f.opened++
	return closerFunc(func() error { f.mu.Lock(); f.shut++; f.mu.Unlock(); return nil }), nil
}

func (f *fakeRequest) counts() (opened, shut int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opened, f.shut
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }

// fakeHold is a latencyHold on a fake clock whose release timer the test
// fires: rearmed holds the durations it was armed for.
func fakeHold(t *testing.T, req *fakeRequest) (h *latencyHold, clock *time.Time, armed *[]time.Duration) {
	t.Helper()
	now := time.Unix(1000, 0)
	var rearms []time.Duration
	h = newLatencyHold(req.open)
	h.now = func() time.Time { return now }
	h.after = func(d time.Duration, f func()) func(time.Duration) {
		rearms = append(rearms, d)
		return func(d time.Duration) { rearms = append(rearms, d) }
	}
	return h, &now, &rearms
}

// waitOpened waits for the hold's goroutine to have tried to open.
func waitOpened(t *testing.T, req *fakeRequest) {
	t.Helper()
	select {
	case <-req.openedSignal:
	case <-time.After(5 * time.Second):
		t.Fatal("the hold did not try to open its request within 5 s of a packet")
	}
}

// A packet makes the request; it is kept while packets come less than
// holdFor apart, released holdFor after the last, and made again by the
// next packet; Stats counts the holds and their time on the hold's clock.
func TestLatencyHoldFollowsTheFlow(t *testing.T) {
	req := &fakeRequest{openedSignal: make(chan struct{}, 4)}
	h, now, armed := fakeHold(t, req)
	h.packet(*now)
	waitOpened(t, req)
	if s := h.stats(); !s.Held || s.Holds != 1 {
		t.Fatalf("after a packet: %+v, want held once", s)
	}
	if len(*armed) != 1 || (*armed)[0] != holdFor {
		t.Fatalf("release armed for %v, want [%v]", *armed, holdFor)
	}
	*now = now.Add(100 * time.Millisecond)
	h.packet(*now) // the flow goes on: no second request
	*now = now.Add(holdFor - 100*time.Millisecond)
	h.expire() // holdFor after the first packet, 150 ms after the last
	if opened, shut := req.counts(); opened != 1 || shut != 0 {
		t.Fatalf("opened %d, closed %d, want 1 and 0 while packets come", opened, shut)
	}
	if got := (*armed)[len(*armed)-1]; got != 100*time.Millisecond {
		t.Fatalf("rearmed for %v, want the rest of holdFor after the last packet (100ms)", got)
	}
	*now = now.Add(100 * time.Millisecond)
	h.expire()
	if s := h.stats(); s.Held || s.HeldMs != float64(holdFor+100*time.Millisecond)/1e6 {
		t.Fatalf("holdFor after the last packet: %+v, want released after %v", s, holdFor+100*time.Millisecond)
	}
	if _, shut := req.counts(); shut != 1 {
		t.Fatalf("closed %d times, want 1", shut)
	}
	*now = now.Add(time.Second)
	h.packet(*now)
	waitOpened(t, req)
	if s := h.stats(); !s.Held || s.Holds != 2 {
		t.Fatalf("a packet after a quiet second: %+v, want held a second time", s)
	}
	h.close()
	if opened, shut := req.counts(); opened != 2 || shut != 2 {
		t.Fatalf("after close: opened %d, closed %d, want 2 and 2", opened, shut)
	}
	h.packet(now.Add(time.Second))
	if s := h.stats(); s.Held || s.Unavailable != "" {
		t.Fatalf("a packet after close: %+v, want nothing held, no failure said", s)
	}
}

// A request that cannot be made is said in Stats and not tried again.
func TestLatencyHoldUnavailable(t *testing.T) {
	req := &fakeRequest{openErr: errors.New("open /dev/cpu_dma_latency: permission denied"), openedSignal: make(chan struct{}, 4)}
	h, now, _ := fakeHold(t, req)
	h.packet(*now)
	waitOpened(t, req)
	for i := range 3 {
		h.packet(now.Add(time.Duration(i+1) * time.Second))
	}
	if s := h.stats(); s.Held || s.Unavailable != req.openErr.Error() {
		t.Fatalf("stats %+v, want not held, unavailable: %v", s, req.openErr)
	}
	select {
	case <-req.openedSignal:
		t.Fatal("tried to open again after a failure")
	default:
	}
	var none *latencyHold
	if s := none.stats(); s.Unavailable == "" {
		t.Fatalf("no hold (Options.NoLatencyHold): %+v, want it said", s)
	}
}
