package wire

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// packetSource is where a line's packets come from, a TUN device's file:
// ReadNow returns one whole packet without waiting (errNoPacket when none
// is queued), Wait returns when one may be (an error once the source is
// shut). Reading apart from waiting lets a thread that is not the line's
// reader take a packet (see line.readReply) under the lock that keeps the
// packets' order.
type packetSource interface {
	Wait() error
	ReadNow(p []byte) (int, error)
}

// errNoPacket is ReadNow's answer when nothing is queued.
var errNoPacket = errors.New("no packet queued")

// packetSink is where a line writes its packets: each Write sends one.
type packetSink interface {
	Write(p []byte) (int, error)
}

// maxReplies bounds the packets a line takes from the other direction's
// source after each write (see readReply): a TCP segment makes at most an
// ACK and what the kernel sends with it.
const maxReplies = 4

// spinBelow: the precise sleeper fires up to 20 µs ahead of a deadline;
// the last few microseconds before a release are spun so that no packet
// leaves early. It is the least lead the releaser asks to be woken with.
const spinBelow = 50 * time.Microsecond

// maxLead bounds the lead the releaser learns (see line.learn): what it
// spins before each release, at real-time priority, is CPU taken from the
// ends of the connection.
const maxLead = 200 * time.Microsecond

// maxInFlight bounds the packets one direction holds (memory), as netem's
// limit does; beyond it a packet is dropped as Overflow.
const maxInFlight = 1 << 16

// line is one direction: a reader that admits packets from src through the
// shaper into a FIFO, and a releaser that writes each to dst at its due
// time. The FIFO's due times never decrease (no reordering), so the
// releaser waits for its head only and a later packet never needs to wake
// it early.
type line struct {
	name   string
	shaper *Shaper
	src    packetSource
	dst    packetSink
	mtu    int
	now    func() time.Time
	pacer  pacer // set before read and release start
	onDrop func(dir string, why Drop, size int, at time.Time)
	// reply, if set, is the other direction, whose source this line's
	// destination is (see readReply); set before read and release start.
	reply *line

	// rx is held from reading a packet until it is admitted (and, due at
	// once, written): the reader and another direction's writer both read
	// src, and only one at a time may, so that packets keep their order.
	rx sync.Mutex

	lead  time.Duration // how early the releaser asks to be woken; its own
	overs time.Duration // moving average of how late its wake-ups came

	mu   sync.Mutex
	fifo []packet
	head int
	pool sync.Pool
	held atomic.Int64 // admitted, not yet written

	c dirCounters
}

type packet struct {
	buf     *[]byte
	n       int
	arrival time.Time
	due     time.Time
}

// pacer is how the releaser waits: until a time, or until woken (a zero
// time waits for a wake only). A wake that comes first ends the next wait.
// precise.Waiter in production: a timerfd on the releaser's own thread.
type pacer interface {
	WaitUntil(t time.Time)
	Wake()
}

func newLine(name string, s *Shaper, src packetSource, dst packetSink, mtu int, now func() time.Time) *line {
	l := &line{name: name, shaper: s, src: src, dst: dst, mtu: mtu, now: now, lead: spinBelow}
	l.pool.New = func() any { b := make([]byte, mtu+64); return &b }
	l.c.delay, l.c.queued, l.c.late = timing.NewTrend(), timing.NewTrend(), timing.NewTrend()
	return l
}

// read admits packets until src fails (closed).
func (l *line) read(ctx context.Context) {
	for ctx.Err() == nil {
		l.rx.Lock()
		err := l.admitNext()
		l.rx.Unlock()
		if errors.Is(err, errNoPacket) {
			err = l.src.Wait()
		}
		if err != nil {
			return
		}
	}
}

// readReply takes what the kernel queued on this line's source while the
// other direction wrote into the same device: a segment's reply made in
// the write's own system call (a SYN-ACK, an ACK) is admitted at once, and
// does not wait for this line's reader to wake (after a quiet moment,
// tens of microseconds more, and its arrival time that late). Where the
// reader holds rx, it is reading already.
func (l *line) readReply() { l.takeQueued(maxReplies) }

// takeQueued admits up to n packets queued on src, unless another thread
// is reading it, and says how many it admitted.
func (l *line) takeQueued(n int) int {
	if !l.rx.TryLock() {
		return 0
	}
	defer l.rx.Unlock()
	for i := range n {
		if l.admitNext() != nil {
			return i
		}
	}
	return n
}

// admitNext reads one packet from src and admits it: dropped, queued for
// the releaser, or, due now with nothing ahead, written. The caller holds
// rx. It returns src's error (errNoPacket: nothing queued).
func (l *line) admitNext() error {
	buf := l.pool.Get().(*[]byte)
	n, err := l.src.ReadNow(*buf)
	if err != nil {
		l.pool.Put(buf)
		return err
	}
	now := l.now()
	l.c.packets.Add(1)
	l.c.bytes.Add(int64(n))
	l.mu.Lock()
	full := len(l.fifo)-l.head >= maxInFlight
	l.mu.Unlock()
	v := Verdict{Drop: Overflow}
	if !full {
		v = l.shaper.Admit(now, n)
	}
	if v.Drop != Pass {
		l.c.dropped[v.Drop].Add(1)
		l.pool.Put(buf)
		if l.onDrop != nil {
			l.onDrop(l.name, v.Drop, n, now)
		}
		return nil
	}
	l.c.record(v)
	p := packet{buf: buf, n: n, arrival: now, due: v.Due}
	l.mu.Lock()
	wasEmpty := l.head == len(l.fifo)
	if wasEmpty && l.held.Load() == 0 && !v.Due.After(now) {
		// Due now with nothing ahead (nothing queued, nothing being
		// written): this thread writes it, saving the releaser's wake-up;
		// held keeps the releaser from writing a later one meanwhile.
		l.held.Add(1)
		l.mu.Unlock()
		l.write(p)
		l.held.Add(-1)
		return nil
	}
	l.held.Add(1)
	l.fifo = append(l.fifo, p)
	l.mu.Unlock()
	if wasEmpty {
		l.pacer.Wake() // a busy releaser looks at the fifo again by itself
	}
	return nil
}

// release writes each packet to dst at its due time until ctx is done
// (then the pacer must be woken).
func (l *line) release(ctx context.Context) {
	for ctx.Err() == nil {
		l.mu.Lock()
		if l.head == len(l.fifo) {
			l.fifo, l.head = l.fifo[:0], 0
			l.mu.Unlock()
			l.pacer.WaitUntil(time.Time{})
			continue
		}
		p := l.fifo[l.head]
		l.mu.Unlock()
		if left := p.due.Sub(l.now()); left > l.lead {
			asked := p.due.Add(-l.lead)
			l.pacer.WaitUntil(asked)
			l.learn(l.now().Sub(asked))
			continue
		}
		for l.now().Before(p.due) { // at most the lead: woken early on purpose
		}
		l.mu.Lock()
		l.fifo[l.head] = packet{}
		l.head++
		if l.head > 4096 && l.head*2 > len(l.fifo) {
			n := copy(l.fifo, l.fifo[l.head:])
			clear(l.fifo[n:])
			l.fifo, l.head = l.fifo[:n], 0
		}
		l.mu.Unlock()
		l.write(p)
		l.held.Add(-1)
	}
}

// learn adapts the lead to how late the releaser's wake-ups come (a
// woken thread's latency, longer under the race detector or on a loaded
// machine), so that a release is on time rather than as late as
// its wake-up: twice the moving average of the oversleep, within
// [spinBelow, maxLead]. A wake-up before the time asked (a new packet)
// teaches nothing.
func (l *line) learn(over time.Duration) {
	if over < 0 {
		return
	}
	l.overs += (over - l.overs) / 8
	l.lead = min(max(2*l.overs, spinBelow), maxLead)
}

// write sends a due packet to the far side and counts it, then takes the
// replies the far side's kernel made meanwhile (readReply).
func (l *line) write(p packet) {
	late := l.now().Sub(p.due)
	_, err := l.dst.Write((*p.buf)[:p.n])
	if err == nil && l.reply != nil {
		l.reply.readReply()
	}
	if err != nil {
		l.c.writeErrors.Add(1)
	} else {
		l.c.passed.Add(1)
		l.c.passedBytes.Add(int64(p.n))
		l.c.mu.Lock()
		l.c.late.Add(late)
		l.c.mu.Unlock()
	}
	l.pool.Put(p.buf)
}

// inFlight is how many packets the line holds: admitted and not yet
// written (counted or failed).
func (l *line) inFlight() int { return int(l.held.Load()) }

// dirCounters are one direction's live counters.
type dirCounters struct {
	packets, bytes, passed, passedBytes, queuedPackets, writeErrors atomic.Int64
	dropped                                                         [Overflow + 1]atomic.Int64

	mu                  sync.Mutex
	delay, queued, late *timing.Trend
}

func (c *dirCounters) record(v Verdict) {
	if v.Queued > 0 {
		c.queuedPackets.Add(1)
	}
	c.mu.Lock()
	c.delay.Add(v.Delay)
	if v.Queued > 0 {
		c.queued.Add(v.Queued)
	}
	c.mu.Unlock()
}

// DirStats is one direction's counters. Times are in ms.
type DirStats struct {
	Link          string             `json:"link"`
	Packets       int64              `json:"packets"` // arrived at the line
	Bytes         int64              `json:"bytes"`
	Passed        int64              `json:"passed"` // written to the far side
	PassedBytes   int64              `json:"passedBytes"`
	Dropped       map[string]int64   `json:"dropped,omitempty"` // by reason: loss, queue full, overflow
	QueuedPackets int64              `json:"queuedPackets"`     // that waited behind others for the rate
	InFlight      int                `json:"inFlight"`          // in the line now
	WriteErrors   int64              `json:"writeErrors,omitempty"`
	Delay         map[string]float64 `json:"delay,omitempty"`  // added per packet: serialization, queue, latency, jitter
	Queued        map[string]float64 `json:"queued,omitempty"` // waiting for the rate, of the packets that waited
	Late          map[string]float64 `json:"late,omitempty"`   // released after the due time: the line's own error
	Histograms    map[string]string  `json:"histograms,omitempty"`
}

// DroppedTotal sums Dropped.
func (s DirStats) DroppedTotal() int64 {
	var n int64
	for _, v := range s.Dropped {
		n += v
	}
	return n
}

func (l *line) stats() DirStats {
	c := &l.c
	s := DirStats{Link: l.shaper.link.String(), Packets: c.packets.Load(), Bytes: c.bytes.Load(), Passed: c.passed.Load(),
		PassedBytes: c.passedBytes.Load(), QueuedPackets: c.queuedPackets.Load(), WriteErrors: c.writeErrors.Load(), InFlight: l.inFlight()}
	for why := Lost; why <= Overflow; why++ {
		if n := c.dropped[why].Load(); n > 0 {
			if s.Dropped == nil {
				s.Dropped = map[string]int64{}
			}
			s.Dropped[why.String()] = n
		}
	}
	stats := append(timing.FullTrendStats(), "count")
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, t := range map[string]*timing.Trend{"delay": c.delay, "queued": c.queued, "late": c.late} {
		if t.Count() == 0 {
			continue
		}
		v, err := t.Values(stats)
		if err != nil {
			continue // cannot happen: the stat names are fixed
		}
		switch name {
		case "delay":
			s.Delay = v
		case "queued":
			s.Queued = v
		default:
			s.Late = v
		}
		if enc, err := t.Encode(); err == nil {
			if s.Histograms == nil {
				s.Histograms = map[string]string{}
			}
			s.Histograms[name] = enc
		}
	}
	return s
}
