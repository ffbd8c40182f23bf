package wire

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// An idle CPU of a small virtual machine halts, and waking it for a packet
// is an exit to the hypervisor and back: most of what a crossing after a
// quiet moment costs above a busy one. While packets flow, the line holds a
// CPU wake-up latency request of 0 (Linux's PM QoS, /dev/cpu_dma_latency):
// idle CPUs then poll instead of halting, and a reader is woken without an
// interrupt to a halted CPU. The request lasts as long as its file is open,
// so it is closed holdFor after the last packet: an idle wire keeps no CPU
// from sleeping. Polling idle CPUs cost no process CPU time (the kernel
// counts them idle), but they keep their cores busy for the host (a
// laptop's power, a cloud host's other guests) while held: Stats says for
// how long.

// holdFor is how long after its last packet the request is kept: a flow's
// quiet moments (a server's work, a think time) are shorter.
const holdFor = 250 * time.Millisecond

// latencyHold is the request, shared by the line's readers: acquired by the
// first packet after a quiet moment, released holdFor after the last.
type latencyHold struct {
	open  func() (io.Closer, error) // makes the request; closing ends it
	after func(d time.Duration, f func()) (reset func(time.Duration))
	now   func() time.Time

	last atomic.Int64 // the last packet, UnixNano
	held atomic.Bool  // req is open (or being opened)

	mu    sync.Mutex
	req   io.Closer
	since time.Time     // when req was opened
	total time.Duration // held before since
	holds int64         // how many times it was acquired
	err   error         // the first failure to open: no request is ever made again
	rearm func(time.Duration)
}

// errHoldClosed marks a hold whose line has stopped.
var errHoldClosed = errors.New("the line has stopped")

// newLatencyHold makes a hold that opens its request with open, on the
// wall clock and the runtime's timers.
func newLatencyHold(open func() (io.Closer, error)) *latencyHold {
	return &latencyHold{open: open, now: time.Now,
		after: func(d time.Duration, f func()) func(time.Duration) {
			t := time.AfterFunc(d, f)
			return func(d time.Duration) { t.Reset(d) }
		}}
}

// packet notes a packet at now and makes the request if none is held; the
// reader does not wait for it.
func (h *latencyHold) packet(now time.Time) {
	h.last.Store(now.UnixNano())
	if h.held.Load() || !h.held.CompareAndSwap(false, true) {
		return
	}
	go h.acquire()
}

// acquire opens the request (held is already true) and arms the release.
func (h *latencyHold) acquire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return // held stays true: never tried again
	}
	req, err := h.open()
	if err != nil {
		h.err = err
		return
	}
	h.req, h.since = req, h.now()
	h.holds++
	if h.rearm == nil {
		h.rearm = h.after(holdFor, h.expire)
	} else {
		h.rearm(holdFor)
	}
}

// expire releases the request if nothing came for holdFor, or waits for the
// rest of it. A packet that stores last before expire reads it keeps the
// request; one after finds held false and makes a new one.
func (h *latencyHold) expire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.req == nil {
		return
	}
	if left := time.Unix(0, h.last.Load()).Add(holdFor).Sub(h.now()); left > 0 {
		h.rearm(left)
		return
	}
	h.releaseLocked()
}

func (h *latencyHold) releaseLocked() {
	_ = h.req.Close()
	h.req = nil
	h.total += h.now().Sub(h.since)
	h.held.Store(false)
}

// close ends the request for good.
func (h *latencyHold) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.req != nil {
		h.releaseLocked()
	}
	h.err = errHoldClosed
	h.held.Store(true)
}

// HoldStats says whether the line held the CPUs' wake-up latency at 0
// while packets flowed, and for how long in all.
type HoldStats struct {
	// Unavailable is why no request could be made (no root, no
	// /dev/cpu_dma_latency, or Options.NoLatencyHold); empty when it could.
	Unavailable string  `json:"unavailable,omitempty"`
	Held        bool    `json:"held"`   // now
	Holds       int64   `json:"holds"`  // acquired, in all
	HeldMs      float64 `json:"heldMs"` // in all, the current hold included
}

// String says it in a line: "idle CPUs held polling 1234.5 ms (3 holds)",
// or why they were not.
func (s HoldStats) String() string {
	if s.Unavailable != "" {
		return "idle CPUs not held polling: " + s.Unavailable
	}
	return fmt.Sprintf("idle CPUs held polling %.1f ms (%d holds)", s.HeldMs, s.Holds)
}

func (h *latencyHold) stats() HoldStats {
	if h == nil {
		return HoldStats{Unavailable: "switched off (noLatencyHold)"}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := HoldStats{Held: h.req != nil, Holds: h.holds}
	held := h.total
	if h.req != nil {
		held += h.now().Sub(h.since)
	}
	s.HeldMs = float64(held) / float64(time.Millisecond)
	if h.err != nil && h.err != errHoldClosed {
		s.Unavailable = h.err.Error()
	}
	return s
}
