package wire

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A reader that sleeps in ppoll between packets wakes cold after a quiet
// moment: its thread's wake-up, ppoll's return, the TUN read and the far
// stack's write have left the caches, and the first packet pays for all of
// it. With Options.BusyPoll, while packets flow and for pollFor after the
// last, a thread of the line's own busy-polls both devices, as a NIC
// driver's busy poll does, and takes a packet the moment it is queued.
//
// It spins under SCHED_IDLE: it runs only on a CPU nothing else wants, and
// any other thread that wakes takes the CPU from it at once. A SCHED_IDLE
// thread must never hold what a real-time one waits for: it takes a line's
// read lock only after raising itself to the readers' policy, and drops
// back once it has let go. Where it cannot run under SCHED_IDLE it does
// not run at all. The readers still wait in ppoll: on a busy machine the
// poller does not run (and, kept from its CPU, stops spinning for pollFor:
// see spin), and they take every packet as they did without it. After
// pollFor of nothing it sleeps until the next packet's reader wakes it: an
// idle wire costs nothing.
//
// Measured (rtt, RTT 1 ms, 2026-12-05): the engine's new connections gain,
// real k6's lose; hence off by default. The likely price, not measured
// apart, is the connection's ends': the CPU it spins on is no longer idle
// to the kernel, so a thread woken there needs an interrupt (on a virtual
// machine, an exit to the hypervisor) where a polling idle CPU needs none.

// pollFor is how long after its last packet the poller spins: a flow's
// quiet moments (a server's work, a think time) are shorter.
const pollFor = 250 * time.Millisecond

// poller is the busy poll over both directions. Made only in the process
// that moves the packets; run spins on a thread of its own.
type poller struct {
	lines    [2]*line
	devs     [2]*tunDev
	realtime bool        // the readers run under SCHED_FIFO; set before run
	work     func() bool // puts the calling thread under the readers' policy
	rest     func() bool // puts it back under SCHED_IDLE

	asleep atomic.Bool
	wake   chan struct{} // one token: a packet came while asleep

	ran     atomic.Bool  // its thread went under SCHED_IDLE
	taken   atomic.Int64 // packets the poller admitted before a reader
	spunNs  atomic.Int64 // time spent spinning, in all, the current spin not included
	since   atomic.Int64 // when the current spin began, UnixNano; 0: not spinning
	starved atomic.Int64 // spins cut short because other work took the CPU
}

// newPoller makes the poller and tells the devices of it, before their
// readers start; realtime is set before run.
func newPoller(lines [2]*line, devs [2]*tunDev) *poller {
	if cpus := runtime.NumCPU(); cpus < 2 {
		return nil // no CPU is ever idle for it while the readers work
	}
	p := &poller{lines: lines, devs: devs, wake: make(chan struct{}, 1)}
	p.rest = func() bool { return setPolicy(0, unix.SCHED_IDLE, 0) }
	p.work = func() bool {
		if p.realtime {
			return setRealtime(0)
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
		return unix.SchedSetAttr(0, &attr, 0) == nil
	}
	for _, d := range devs {
		d.poll = p
	}
	return p
}

// packet is told of each packet a reader reads: the first after a quiet
// moment wakes the poller.
func (p *poller) packet() {
	if p.asleep.Load() && p.asleep.CompareAndSwap(true, false) {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// lastPacket is the later of the two devices' last packets.
func (p *poller) lastPacket() time.Time {
	return time.Unix(0, max(p.devs[0].last.Load(), p.devs[1].last.Load()))
}

// run spins while packets flow and sleeps while none do, until ctx is
// done. It returns at once where the thread cannot go under SCHED_IDLE.
func (p *poller) run(ctx context.Context) {
	runtime.LockOSThread() // its policy is this thread's; exits locked
	if !p.rest() {
		return
	}
	p.ran.Store(true)
	fds := []unix.PollFd{{Fd: int32(p.devs[0].fd), Events: unix.POLLIN}, {Fd: int32(p.devs[1].fd), Events: unix.POLLIN}}
	for ctx.Err() == nil {
		if time.Since(p.lastPacket()) > pollFor {
			p.asleep.Store(true)
			if time.Since(p.lastPacket()) > pollFor { // a packet between the two reads woke nobody
				select {
				case <-p.wake:
				case <-ctx.Done():
					return
				}
			}
			p.asleep.Store(false)
			continue
		}
		if p.spin(ctx, fds) {
			p.starved.Add(1)
			select { // the readers take every packet meanwhile
			case <-time.After(pollFor):
			case <-ctx.Done():
			}
		}
	}
}

// spin polls the devices until pollFor after the last packet, or until
// other work has kept the thread from its CPU for starvedAfter (then it
// reports true). A goroutine that other threads keep off its CPU while
// it runs Go code would hold up the runtime's stop-the-world pauses, and
// with them every reader and releaser: the poller gives way at once.
func (p *poller) spin(ctx context.Context, fds []unix.PollFd) (starved bool) {
	var zero unix.Timespec
	t0 := time.Now()
	p.since.Store(t0.UnixNano())
	defer func() {
		p.since.Store(0)
		p.spunNs.Add(int64(time.Since(t0)))
	}()
	prev := t0
	for ctx.Err() == nil {
		now := time.Now()
		if now.Sub(prev) > starvedAfter {
			return true
		}
		if now.Sub(p.lastPacket()) > pollFor {
			return false
		}
		prev = now
		if n, err := unix.Ppoll(fds, &zero, nil); err == nil && n > 0 {
			p.take(fds)
			prev = time.Now() // the turn's work is not starvation
		}
	}
	return false
}

// starvedAfter: a turn of the spin (a system call of a microsecond) that
// took longer was kept from its CPU by other work for longer than one of
// the experiment's own moments of work (a TLS handshake's CPU is about a
// millisecond): the machine is busy.
const starvedAfter = 5 * time.Millisecond

// take admits what is queued on the ready devices, under the readers'
// policy (see the package comment on SCHED_IDLE and the read lock).
func (p *poller) take(fds []unix.PollFd) {
	if !p.work() {
		return
	}
	for i, fd := range fds {
		if fd.Revents&unix.POLLIN != 0 {
			p.taken.Add(int64(p.lines[i].takeQueued(maxTaken)))
		}
	}
	p.rest()
}

// maxTaken bounds what the poller admits in one turn, as a reader's own
// loop would take it.
const maxTaken = 64
