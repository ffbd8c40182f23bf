package wire

import (
	"math"
	"math/rand/v2"
	"time"
)

// Drop says why a packet did not pass.
type Drop uint8

// Why a packet is dropped.
const (
	Pass     Drop = iota
	Lost          // the random loss draw
	QueueFul      // the drop-tail queue in front of the rate was full
	Overflow      // more packets in flight than the line holds (no rate limit)
)

func (d Drop) String() string {
	return [...]string{"pass", "loss", "queue full", "overflow"}[d]
}

// Verdict is what the line does with one packet.
type Verdict struct {
	Drop   Drop
	Due    time.Time     // when it leaves the line (when Drop is Pass)
	Queued time.Duration // waiting behind earlier packets for the rate
	Delay  time.Duration // Due - arrival: everything the line added
}

// Shaper schedules one direction's packets. Admit is a pure function of
// (now, size) and the state earlier calls left, so that its tests inject
// the clock and never sleep. Not safe for concurrent use: one reader owns it.
type Shaper struct {
	link      Link
	rng       *rand.Rand
	nsPerByte float64 // 0: no rate limit
	limit     Queue

	backlog   []inRate // packets not yet serialized, oldest first
	head      int
	qBytes    int64
	busyUntil time.Time // when the rate finishes the last admitted packet
	last      time.Time // the previous packet's release: no reordering
}

type inRate struct {
	done time.Time
	size int
}

// NewShaper returns the shaper of one direction; seed makes the loss and
// jitter draws repeatable.
func NewShaper(l Link, seed uint64) *Shaper {
	s := &Shaper{link: l, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), limit: l.Queue.OrDefault()}
	if l.Rate > 0 {
		s.nsPerByte = 1e9 / float64(l.Rate)
	}
	return s
}

// Admit decides the fate of a packet of size bytes arriving at now:
// loss first (a lost packet takes no room), then the drop-tail queue in
// front of the rate, serialization at the rate, the latency with its
// jitter, and no overtaking of the packet ahead.
func (s *Shaper) Admit(now time.Time, size int) Verdict {
	if p := s.link.Loss.Fraction(); p > 0 && s.rng.Float64() < p {
		return Verdict{Drop: Lost}
	}
	sent := now
	var queued time.Duration
	if s.nsPerByte > 0 {
		s.retire(now)
		if s.full(size) {
			return Verdict{Drop: QueueFul}
		}
		start := now
		if s.busyUntil.After(now) {
			start = s.busyUntil
			queued = start.Sub(now)
		}
		sent = start.Add(time.Duration(math.Round(float64(size) * s.nsPerByte)))
		s.busyUntil = sent
		s.backlog = append(s.backlog, inRate{done: sent, size: size})
		s.qBytes += int64(size)
	}
	due := sent.Add(s.latency())
	if due.Before(s.last) {
		due = s.last
	}
	s.last = due
	return Verdict{Due: due, Queued: queued, Delay: due.Sub(now)}
}

// latency draws the one-way delay: uniform in [latency-jitter, latency+jitter].
func (s *Shaper) latency() time.Duration {
	d := s.link.Latency.D()
	if j := s.link.Jitter.D(); j > 0 {
		d += time.Duration(s.rng.Int64N(2*int64(j)+1)) - j
	}
	return max(d, 0)
}

// retire forgets the packets the rate has finished sending by now.
func (s *Shaper) retire(now time.Time) {
	for s.head < len(s.backlog) && !s.backlog[s.head].done.After(now) {
		s.qBytes -= int64(s.backlog[s.head].size)
		s.head++
	}
	if s.head == len(s.backlog) {
		s.backlog, s.head = s.backlog[:0], 0
	} else if s.head > 1024 && s.head*2 > len(s.backlog) {
		n := copy(s.backlog, s.backlog[s.head:])
		s.backlog, s.head = s.backlog[:n], 0
	}
}

// full says whether a packet of size bytes finds the queue full. The
// packet being serialized counts, as in a qdisc's backlog; an empty queue
// always takes a packet, however large.
func (s *Shaper) full(size int) bool {
	n := len(s.backlog) - s.head
	if n == 0 {
		return false
	}
	if s.limit.Packets > 0 {
		return n >= s.limit.Packets
	}
	return s.qBytes+int64(size) > s.limit.Bytes
}

// Backlog is what waits for the rate at now: packets and bytes.
func (s *Shaper) Backlog(now time.Time) (packets int, bytes int64) {
	s.retire(now)
	return len(s.backlog) - s.head, s.qBytes
}
