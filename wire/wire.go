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
}

// Wire is a running link between a generator and a server namespace.
type Wire struct {
	cfg      Config
	gen, srv *Namespace
	tuns     [2]*tunDev
	lines    [2]*line // up, down
	waiters  [2]*precise.Waiter
	realtime [2]bool
	procs    bool // added extraProcs to GOMAXPROCS
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	stop     func() bool
	once     sync.Once
	err      error
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
	// Each of the four line threads waits in a system call and, woken,
	// needs a P to run: without spare ones a waking thread queues behind
	// the process's busy goroutines (measured: releases 100+ ms late
	// under load, 0.7 ms at most with spare Ps).
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + extraProcs)
	w.procs = true
	w.lines[0] = newLine("up", NewShaper(cfg.UpLink(), cfg.Seed), w.tuns[0], w.tuns[1], mtu, time.Now)
	w.lines[1] = newLine("down", NewShaper(cfg.DownLink(), cfg.Seed+1), w.tuns[1], w.tuns[0], mtu, time.Now)
	lctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	for i, l := range w.lines {
		l.onDrop = opts.OnDrop
		ready := make(chan struct{})
		w.wg.Go(func() {
			w.waiters[i] = precise.NewWaiter() // locks this goroutine to its thread
			l.pacer = w.waiters[i]
			if !opts.NoRealtime {
				w.realtime[i] = realtime()
			}
			close(ready)
			l.release(lctx)
		})
		<-ready
		w.wg.Go(func() {
			runtime.LockOSThread() // waits in ppoll on this thread; exits locked
			if !opts.NoRealtime {
				realtime()
			}
			l.read(lctx)
		})
	}
	w.stop = context.AfterFunc(ctx, func() { _ = w.Close() })
	return w, nil
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
}

// Stats reads the counters.
func (w *Wire) Stats() Stats {
	return Stats{Gen: w.gen.name, Srv: w.srv.name, Up: w.lines[0].stats(), Down: w.lines[1].stats(), Realtime: w.realtime[0] && w.realtime[1]}
}

// Summary is one line for logs.
func (w *Wire) Summary() string {
	s := w.Stats()
	return fmt.Sprintf("wire %s ⇄ %s: %s; up %d packets (%d dropped), down %d packets (%d dropped)",
		s.Gen, s.Srv, w.cfg, s.Up.Packets, s.Up.DroppedTotal(), s.Down.Packets, s.Down.DroppedTotal())
}

// Close stops the lines and removes both namespaces. Safe to call twice.
func (w *Wire) Close() error {
	w.once.Do(func() {
		if w.stop != nil {
			w.stop()
		}
		w.cancel()
		for _, d := range w.tuns {
			d.shutdown()
		}
		for _, p := range w.waiters {
			p.Wake()
		}
		w.wg.Wait()
		var errs []error
		for i, p := range w.waiters {
			p.Close()
			errs = append(errs, w.tuns[i].Close())
		}
		if w.procs {
			runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0)-extraProcs, 1))
		}
		errs = append(errs, w.gen.remove(), w.srv.remove())
		if err := errors.Join(errs...); err != nil {
			w.err = fmt.Errorf("wire: close: %w", err)
		}
	})
	return w.err
}
