package wire

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
)

// linePair is up (gen → srv) and down (srv → gen) on two fake devices, as
// a wire's, each writing into the device the other reads.
type linePair struct {
	fc       *clock.Fake
	gen, srv *chanIO
	up, down *line
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func newLinePair(up, down Link) *linePair {
	fc := clock.NewFake(time.Unix(1000, 0))
	p := &linePair{fc: fc, gen: &chanIO{in: make(chan []byte), fc: fc}, srv: &chanIO{in: make(chan []byte), fc: fc}}
	p.up = newLine("up", NewShaper(up, 1), p.gen, p.srv, 1500, fc.Now)
	p.down = newLine("down", NewShaper(down, 2), p.srv, p.gen, 1500, fc.Now)
	p.up.reply, p.down.reply = p.down, p.up
	for _, l := range []*line{p.up, p.down} {
		l.pacer = &fakePacer{fc: fc, wake: make(chan struct{}, 1)}
	}
	return p
}

// start runs the releasers, and the readers of the lines given.
func (p *linePair) start(readers ...*line) {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	for _, l := range []*line{p.up, p.down} {
		p.wg.Go(func() { l.release(ctx) })
	}
	for _, l := range readers {
		p.wg.Go(func() { l.read(ctx) })
	}
}

func (p *linePair) stop() {
	p.cancel()
	close(p.gen.in)
	close(p.srv.in)
	p.up.pacer.Wake()
	p.down.pacer.Wake()
	p.wg.Wait()
}

func (c *chanIO) written() []sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sent(nil), c.out...)
}

// TestReplyReadAdmitsTheKernelsReply: the server side's kernel queues a
// reply while up writes a packet into it (a SYN-ACK); down's reader never
// runs, so only up's writing thread can take it, at the moment it was
// queued: it leaves down's line 1 ms after up released the packet.
func TestReplyReadAdmitsTheKernelsReply(t *testing.T) {
	p := newLinePair(Link{Latency: ms(1)}, Link{Latency: ms(1)})
	p.srv.reply = func(b []byte) []byte { return []byte{b[0] | 0x80} }
	p.start(p.up) // down's reader is never started
	defer p.stop()
	t0 := p.fc.Now()
	p.gen.in <- []byte{7}
	waitFor(t, "the packet admitted", func() bool { return p.up.c.packets.Load() == 1 })
	if !p.fc.WaitPending(1, 5*time.Second) {
		t.Fatal("up's releaser never waited")
	}
	p.fc.Advance(time.Millisecond)
	waitFor(t, "the reply admitted by up's writer", func() bool { return p.down.c.packets.Load() == 1 })
	if got := p.srv.written(); len(got) != 1 || got[0].b[0] != 7 || got[0].at.Sub(t0) != time.Millisecond {
		t.Fatalf("server side got %v, want packet 7 at +1ms", got)
	}
	if !p.fc.WaitPending(1, 5*time.Second) {
		t.Fatal("down's releaser never waited for the reply")
	}
	p.fc.Advance(time.Millisecond)
	waitFor(t, "the reply released", func() bool { return len(p.gen.written()) == 1 })
	if got := p.gen.written(); got[0].b[0] != 0x87 || got[0].at.Sub(t0) != 2*time.Millisecond {
		t.Fatalf("generator side got packet %#x at +%v, want 0x87 at +2ms", got[0].b[0], got[0].at.Sub(t0))
	}
}

// TestReplyReadKeepsOrder: down's packets come both from its reader and
// from up's writer taking replies; whichever thread takes each, they leave
// in the order the server side queued them (numbered as queued), none lost.
func TestReplyReadKeepsOrder(t *testing.T) {
	const n = 500
	p := newLinePair(Link{}, Link{})
	p.srv.reply = func(b []byte) []byte { return make([]byte, 8) }
	p.srv.stamp = true
	p.start(p.up, p.down)
	defer p.stop()
	var feed sync.WaitGroup
	feed.Go(func() {
		for range n {
			p.gen.in <- make([]byte, 8)
		}
	})
	feed.Go(func() {
		for range n {
			p.srv.in <- make([]byte, 8)
		}
	})
	feed.Wait()
	waitFor(t, "every packet through", func() bool {
		return p.up.c.passed.Load() == n && p.down.c.passed.Load() == 2*n
	})
	got := p.gen.written()
	if len(got) != 2*n {
		t.Fatalf("generator side got %d packets, want %d", len(got), 2*n)
	}
	for i, s := range got {
		if seq := binary.BigEndian.Uint32(s.b[1:]); seq != uint32(i+1) {
			t.Fatalf("packet %d on the generator side was queued %d-th: reordered", i+1, seq)
		}
	}
	if p.down.c.packets.Load() != 2*n {
		t.Errorf("down admitted %d packets, want %d", p.down.c.packets.Load(), 2*n)
	}
}
