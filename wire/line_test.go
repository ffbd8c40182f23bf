package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
)

// fakePacer waits on a fake clock.
type fakePacer struct {
	fc   *clock.Fake
	wake chan struct{}
}

func (p *fakePacer) WaitUntil(t time.Time) {
	if t.IsZero() {
		<-p.wake
		return
	}
	tm := p.fc.NewTimer(t.Sub(p.fc.Now()))
	select {
	case <-tm.C():
	case <-p.wake:
		tm.Stop()
	}
}

func (p *fakePacer) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// chanIO is a packet device: reads come from in, writes are recorded with
// the fake time they happened.
type chanIO struct {
	in     chan []byte
	fc     *clock.Fake
	mu     sync.Mutex
	out    []sent
	queued [][]byte
	got    chan struct{}
	// reply, if set, makes the packet a write queues on this same device
	// before the write returns, as a kernel's SYN-ACK.
	reply func(p []byte) []byte
	seq   uint32 // numbers the queued packets in their byte 1, when stamp
	stamp bool
}

type sent struct {
	b  []byte
	at time.Time
}

// Wait takes the next packet off in for ReadNow (the reader's thread only).
func (c *chanIO) Wait() error {
	b, ok := <-c.in
	if !ok {
		return errors.New("closed")
	}
	c.push(b)
	return nil
}

// ReadNow returns a packet Wait or push queued.
func (c *chanIO) ReadNow(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queued) == 0 {
		return 0, errNoPacket
	}
	n := copy(p, c.queued[0])
	c.queued = c.queued[1:]
	return n, nil
}

// push queues a packet at once, as a kernel does on a device while a
// write into it runs.
func (c *chanIO) push(b []byte) {
	c.mu.Lock()
	if c.stamp {
		c.seq++
		b = append([]byte(nil), b...)
		binary.BigEndian.PutUint32(b[1:], c.seq)
	}
	c.queued = append(c.queued, b)
	c.mu.Unlock()
}

func (c *chanIO) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out = append(c.out, sent{b: append([]byte(nil), p...), at: c.fc.Now()})
	c.mu.Unlock()
	if c.reply != nil {
		c.push(c.reply(p))
	}
	if c.got != nil {
		c.got <- struct{}{}
	}
	return len(p), nil
}

// TestLineReleasesAtDueTime: packets go through a line on a fake clock;
// none leaves before its due time, each leaves when the clock reaches it,
// in order, and the counters say what passed and what was dropped.
func TestLineReleasesAtDueTime(t *testing.T) {
	t0 := time.Unix(1000, 0)
	fc := clock.NewFake(t0)
	src := &chanIO{in: make(chan []byte), fc: fc, got: make(chan struct{}, 16)}
	dst := &chanIO{in: make(chan []byte), fc: fc, got: make(chan struct{}, 16)}
	// 1 Mbit/s and 20 ms: 1250 bytes leave 30 ms after arriving, the
	// next of a burst 10 ms later; a queue of 2 drops the third.
	l := newLine("up", NewShaper(Link{Latency: ms(20), Rate: mbit(1), Queue: Queue{Packets: 2}}, 1), src, dst, 1500, fc.Now)
	l.pacer = &fakePacer{fc: fc, wake: make(chan struct{}, 1)}
	var dropped []Drop
	l.onDrop = func(dir string, why Drop, size int, at time.Time) { dropped = append(dropped, why) }
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { l.read(ctx) })
	wg.Go(func() { l.release(ctx) })
	for i := range 3 {
		b := make([]byte, 1250)
		b[0] = byte(i)
		src.in <- b
	}
	waitFor(t, "three packets admitted", func() bool { return l.c.packets.Load() == 3 && l.c.dropped[QueueFul].Load() == 1 })
	if !fc.WaitPending(1, 5*time.Second) {
		t.Fatal("the releaser never waited")
	}
	expect := func(n int, at time.Duration) {
		t.Helper()
		select {
		case <-dst.got:
		case <-time.After(5 * time.Second):
			t.Fatalf("packet %d not released at +%v", n, at)
		}
		dst.mu.Lock()
		p := dst.out[len(dst.out)-1]
		dst.mu.Unlock()
		if p.b[0] != byte(n) || p.at.Sub(t0) != at {
			t.Fatalf("released packet %d at +%v, want packet %d at +%v", p.b[0], p.at.Sub(t0), n, at)
		}
	}
	fc.Advance(29 * time.Millisecond)
	select {
	case <-dst.got:
		t.Fatal("a packet left before its due time")
	case <-time.After(20 * time.Millisecond):
	}
	fc.Advance(time.Millisecond)
	expect(0, 30*time.Millisecond)
	if !fc.WaitPending(1, 5*time.Second) {
		t.Fatal("the releaser did not wait for the second packet")
	}
	fc.Advance(10 * time.Millisecond)
	expect(1, 40*time.Millisecond)
	cancel()
	close(src.in)
	l.pacer.Wake()
	wg.Wait()
	s := l.stats()
	if s.Packets != 3 || s.Passed != 2 || s.Dropped["queue full"] != 1 || len(dropped) != 1 || dropped[0] != QueueFul {
		t.Errorf("stats %+v, drops seen %v: want 3 packets, 2 passed, 1 queue full", s, dropped)
	}
	if s.QueuedPackets != 1 || s.Queued["max"] != 10 {
		t.Errorf("queued %d packets, max %v ms: want 1 packet queued 10 ms", s.QueuedPackets, s.Queued["max"])
	}
	if s.Late["max"] != 0 {
		t.Errorf("on a fake clock no packet may be late: late max %v ms", s.Late["max"])
	}
}

// waitFor polls cond (a condition another goroutine makes true) for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		// Not faster: a wire's Stats is a request to its line process,
		// ahead of other processes' threads (urgentWhile).
		time.Sleep(10 * time.Millisecond)
	}
}
