package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/precise"
)

// ErrUnavailable is returned when the machine cannot host a wire (no root,
// no /dev/net/tun, not Linux); the userspace link stage still works there.
var ErrUnavailable = errors.New("wire unavailable")

// The two ends' addresses: a /30 of their own inside each pair of
// namespaces, so every wire can use the same ones and nothing routes out.
var (
	genIP = net.IPv4(10, 201, 0, 1).To4()
	srvIP = net.IPv4(10, 201, 0, 2).To4()
)

// extraProcs is the GOMAXPROCS a wire adds while it runs: one per line thread.
const extraProcs = 4

// Options are what a caller adds to a Config.
type Options struct {
	// Log receives one-line notices (stale namespaces removed).
	Log io.Writer
	// OnDrop, if set, is called for every packet the wire drops, from the
	// reading goroutine (keep it short): dir is "up" or "down".
	OnDrop func(dir string, why Drop, size int, at time.Time)
	// NoRealtime keeps the releasing threads in the normal scheduler
	// (by default they ask for SCHED_FIFO, to keep their deadlines when
	// other processes load every CPU).
	NoRealtime bool
	// InProcess keeps the delay line in this process even where the
	// binary can run it in a child (EnableLineProcess).
	InProcess bool
	// KeepWarm wakes each reader every 250 µs while packets flow through
	// it (and for 250 ms after), so that a packet after a quiet moment
	// finds its path warm (see warmer); it costs CPU while packets flow,
	// none on an idle wire.
	KeepWarm bool
	// NoLatencyHold lets idle CPUs halt while packets flow (by default the
	// line asks them to poll, from a packet until 250 ms after the last,
	// where the process may: see latencyHold and Stats.Hold).
	NoLatencyHold bool
	// NoReplyRead leaves a reply that the far side's kernel queues while
	// the line writes a packet into it (a SYN-ACK, an ACK) to the other
	// direction's reader, woken for it; by default the writing thread
	// takes it at once (see line.readReply).
	NoReplyRead bool
	// BusyPoll has a thread under SCHED_IDLE busy-poll both devices while
	// packets flow (see poller): a crossing after a quiet moment is taken
	// on a warm path, but every other wake-up on the CPU it spins on costs
	// an interrupt (see doc.go). Off by default: the readers, woken, take
	// every packet.
	BusyPoll bool
}

// Wire is a running link between a generator and a server namespace.
type Wire struct {
	cfg      Config
	gen, srv *Namespace
	tuns     [2]*tunDev
	local    *localLines  // the delay line in this process, or
	remote   *remoteLines // in a child of its own (EnableLineProcess)
	procs    bool         // added extraProcs to GOMAXPROCS
	stop     func() bool
	once     sync.Once
	err      error
}

// localLines are the two directions moving packets in this process: per
// direction a reader and a releaser, each on its own locked thread.
type localLines struct {
	lines    [2]*line // up, down
	waiters  [2]*precise.Waiter
	realtime [2]bool
	tuns     [2]*tunDev
	hold     *latencyHold // nil with Options.NoLatencyHold
	poll     *poller      // nil without Options.BusyPoll, or on one CPU
	noPoll   string       // why poll is nil
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

func startLocalLines(up, down Link, upSeed, downSeed uint64, mtu int, tuns [2]*tunDev, opts Options) *localLines {
	ls := &localLines{tuns: tuns}
	if !opts.NoLatencyHold {
		ls.hold = newLatencyHold(openCPULatency)
	}
	for _, d := range tuns {
		d.hold = ls.hold
		if opts.KeepWarm {
			d.keepWarm()
		}
	}
	ls.lines[0] = newLine("up", NewShaper(up, upSeed), tuns[0], tuns[1], mtu, time.Now)
	ls.lines[1] = newLine("down", NewShaper(down, downSeed), tuns[1], tuns[0], mtu, time.Now)
	if !opts.NoReplyRead {
		ls.lines[0].reply, ls.lines[1].reply = ls.lines[1], ls.lines[0]
	}
	ls.noPoll = "off (busyPoll: true turns it on)"
	if opts.BusyPoll {
		ls.noPoll = "one CPU"
		ls.poll = newPoller(ls.lines, tuns) // before the readers: they tell it of packets
	}
	lctx, cancel := context.WithCancel(context.Background())
	ls.cancel = cancel
	for i, l := range ls.lines {
		l.onDrop = opts.OnDrop
		ready := make(chan struct{})
		ls.wg.Go(func() {
			ls.waiters[i] = precise.NewWaiter() // locks this goroutine to its thread
			l.pacer = ls.waiters[i]
			if !opts.NoRealtime {
				ls.realtime[i] = realtime()
			}
			close(ready)
			l.release(lctx)
		})
		<-ready
		ls.wg.Go(func() {
			runtime.LockOSThread() // waits in ppoll on this thread; exits locked
			if !opts.NoRealtime {
				realtime()
			}
			l.read(lctx)
		})
	}
	if ls.poll != nil {
		ls.poll.realtime = ls.realtime[0] && ls.realtime[1]
		ls.wg.Go(func() { ls.poll.run(lctx) })
	}
	return ls
}

func (ls *localLines) stats() procStats {
	return procStats{Up: ls.lines[0].stats(), Down: ls.lines[1].stats(), Realtime: ls.realtime[0] && ls.realtime[1], Hold: ls.hold.stats(), Poll: ls.poll.stats(ls.noPoll)}
}

// close stops the four threads; the devices stay open.
func (ls *localLines) close() {
	ls.cancel()
	for _, d := range ls.tuns {
		d.shutdown()
	}
	for _, p := range ls.waiters {
		p.Wake()
	}
	ls.wg.Wait()
	for _, p := range ls.waiters {
		p.Close()
	}
	if ls.hold != nil {
		ls.hold.close()
	}
}

// Start creates the namespaces and their TUN devices and starts moving
// packets. The wire closes when ctx is done or Close is called; stale
// namespaces of killed runs are removed first, and said on opts.Log.
func Start(ctx context.Context, cfg Config, opts Options) (*Wire, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	if err := checkAvailable(); err != nil {
		return nil, err
	}
	opts.NoLatencyHold = opts.NoLatencyHold || cfg.NoLatencyHold
	opts.NoReplyRead = opts.NoReplyRead || cfg.NoReplyRead
	opts.BusyPoll = opts.BusyPoll || cfg.BusyPoll
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	removed, err := SweepStale()
	for _, name := range removed {
		fmt.Fprintf(log, "wire: removed stale namespace %s (its run is gone)\n", name)
	}
	if err != nil {
		fmt.Fprintln(log, err)
	}
	w := &Wire{cfg: cfg}
	mtu := cfg.MTUOrDefault()
	for attempt := 0; ; attempt++ {
		base := pairName()
		w.gen, w.tuns[0], err = newSide(base+"-gen", genIP, mtu)
		if err == nil {
			w.srv, w.tuns[1], err = newSide(base+"-srv", srvIP, mtu)
			if err != nil {
				w.tuns[0].Close()
				_ = w.gen.remove()
			}
		}
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || attempt > 10 {
			return nil, fmt.Errorf("wire: %w", err)
		}
	}
	if lineProcessEnabled() && !opts.InProcess {
		if w.remote, err = startLineProcess(cfg, opts, w.tuns); err != nil {
			// The wire still works in this process, with less precise
			// releases under load: say so and go on.
			fmt.Fprintf(log, "wire: %v; moving packets in this process instead\n", err)
			w.remote = nil
		}
	}
	if w.remote == nil {
		// Each of the four line threads waits in a system call and, woken,
		// needs a P to run: without spare ones a waking thread queues behind
		// the process's busy goroutines. A busy engine can still take them
		// all: the line's own process (EnableLineProcess) cannot.
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + extraProcs)
		w.procs = true
		w.local = startLocalLines(cfg.UpLink(), cfg.DownLink(), cfg.Seed, cfg.Seed+1, mtu, w.tuns, opts)
	}
	w.stop = context.AfterFunc(ctx, func() { _ = w.Close() })
	return w, nil
}

// closeSides closes the devices and removes both namespaces.
func (w *Wire) closeSides() error {
	var errs []error
	for _, d := range w.tuns {
		errs = append(errs, d.Close())
	}
	return errors.Join(append(errs, w.gen.remove(), w.srv.remove())...)
}

// Gen is the generator's side: the load dials from here.
func (w *Wire) Gen() *Namespace { return w.gen }

// Srv is the server's side: the boxes and the server listen here.
func (w *Wire) Srv() *Namespace { return w.srv }

// Config is the wire's configuration.
func (w *Wire) Config() Config { return w.cfg }

// ExecCommand is the shell command that runs args (e.g. k6 run …) in the
// generator's namespace.
func (w *Wire) ExecCommand(args ...string) string {
	return strings.Join(append([]string{"ip", "netns", "exec", w.gen.name}, args...), " ")
}

// Stats is the wire's counters per direction.
type Stats struct {
	Gen  string   `json:"gen"` // namespace names
	Srv  string   `json:"srv"`
	Up   DirStats `json:"up"` // generator → server
	Down DirStats `json:"down"`
	// Realtime says whether the releasing threads run under SCHED_FIFO.
	Realtime bool `json:"realtime"`
	// Process says whether the delay line runs in a process of its own.
	Process bool `json:"process"`
	// Hold is the CPU wake-up latency request the line holds while
	// packets flow (Options.NoLatencyHold).
	Hold HoldStats `json:"hold"`
	// Poll is the busy poll over both devices while packets flow
	// (Options.BusyPoll).
	Poll PollStats `json:"poll"`
}

// Stats reads the counters.
func (w *Wire) Stats() Stats {
	s := Stats{Gen: w.gen.name, Srv: w.srv.name, Process: w.remote != nil}
	p := procStats{}
	if w.remote != nil {
		p = w.remote.stats()
	} else {
		p = w.local.stats()
	}
	s.Up, s.Down, s.Realtime, s.Hold, s.Poll = p.Up, p.Down, p.Realtime, p.Hold, p.Poll
	return s
}

// Summary is one line for logs.
func (w *Wire) Summary() string {
	s := w.Stats()
	return fmt.Sprintf("wire %s ⇄ %s: %s; up %d packets (%d dropped), down %d packets (%d dropped); %s; %s",
		s.Gen, s.Srv, w.cfg, s.Up.Packets, s.Up.DroppedTotal(), s.Down.Packets, s.Down.DroppedTotal(), s.Hold, s.Poll)
}

// Close stops the lines and removes both namespaces. Safe to call twice.
func (w *Wire) Close() error {
	w.once.Do(func() {
		if w.stop != nil {
			w.stop()
		}
		var errs []error
		if w.remote != nil {
			errs = append(errs, w.remote.close())
		} else {
			w.local.close()
		}
		errs = append(errs, w.closeSides())
		if w.procs {
			runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0)-extraProcs, 1))
		}
		if err := errors.Join(errs...); err != nil {
			w.err = fmt.Errorf("wire: close: %w", err)
		}
	})
	return w.err
}
