package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/middlebench/middlebench/internal/units"
)

// The delay line in its own process. In the process of a load engine that
// keeps every P busy, a releasing thread that wakes on time still waits
// for a P before it can write, behind the engine's goroutines. A process
// that only moves packets has idle Ps, and its SCHED_FIFO threads take the
// CPU from the engine's the moment they wake.
//
// The parent keeps the namespaces (it listens and dials in them) and hands
// the two TUN fds to a child of its own binary, which calls
// ServeLineProcess first thing in main. The child dies with its parent
// (Pdeathsig) and ends when the control socket closes; the parent reads the
// counters over that socket and the drops arrive on it as they happen.

// The child's fds: ExtraFiles start at 3.
const (
	fdUpSrc = 3 + iota // the generator's TUN: up's source, down's destination
	fdDownSrc
	fdControl
)

// linkSpec is a Link in plain numbers, exact across the process boundary.
type linkSpec struct {
	Latency, Jitter time.Duration
	Rate            float64 // bytes/s
	QueueBytes      int64
	QueuePackets    int
	Loss            float64
	Seed            uint64
}

func specOf(l Link, seed uint64) linkSpec {
	return linkSpec{Latency: l.Latency.D(), Jitter: l.Jitter.D(), Rate: float64(l.Rate), QueueBytes: l.Queue.Bytes,
		QueuePackets: l.Queue.Packets, Loss: float64(l.Loss), Seed: seed}
}

func (s linkSpec) link() Link {
	return Link{Latency: units.Duration(s.Latency), Jitter: units.Duration(s.Jitter), Rate: units.ByteRate(s.Rate),
		Queue: Queue{Bytes: s.QueueBytes, Packets: s.QueuePackets}, Loss: Percent(s.Loss)}
}

type procSpec struct {
	Up, Down   linkSpec
	MTU        int
	NoRealtime bool
	KeepWarm   bool
	NoHold     bool // Options.NoLatencyHold
	NoReply    bool // Options.NoReplyRead
	BusyPoll   bool // Options.BusyPoll
	Drops      bool // send each drop to the parent
}

// procMsg is one line on the control socket.
type procMsg struct {
	Stats *procStats `json:"stats,omitempty"` // child → parent, after "stats"
	Drop  *procDrop  `json:"drop,omitempty"`  // child → parent, as it happens
}

type procStats struct {
	Up, Down DirStats
	Realtime bool
	Hold     HoldStats
	Poll     PollStats
}

type procDrop struct {
	Dir  string
	Why  Drop
	Size int
	At   time.Time
}

// remoteLines is the parent's handle on a child that moves the packets.
type remoteLines struct {
	cmd     *exec.Cmd
	ctrl    *net.UnixConn
	mu      sync.Mutex // one stats request at a time
	replies chan procStats
	done    chan struct{} // the reader ended: the child is gone
	last    procStats     // the counters when the child ended
	stderr  lockedBuffer
}

// lockedBuffer is the child's stderr: written by exec's copying goroutine,
// read while the child may still write (a test's watchdog reads the stacks
// a SIGQUIT made it print).
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLineProcess starts the child on the two TUN devices.
func startLineProcess(cfg Config, opts Options, tuns [2]*tunDev) (*remoteLines, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	childEnd := os.NewFile(uintptr(pair[1]), "wire-control")
	defer childEnd.Close()
	parentEnd := os.NewFile(uintptr(pair[0]), "wire-control")
	fc, err := net.FileConn(parentEnd)
	parentEnd.Close()
	if err != nil {
		return nil, err
	}
	spec := procSpec{Up: specOf(cfg.UpLink(), cfg.Seed), Down: specOf(cfg.DownLink(), cfg.Seed+1), MTU: cfg.MTUOrDefault(),
		NoRealtime: opts.NoRealtime, KeepWarm: opts.KeepWarm, NoHold: opts.NoLatencyHold, NoReply: opts.NoReplyRead, BusyPoll: opts.BusyPoll, Drops: opts.OnDrop != nil}
	b, _ := json.Marshal(spec) // plain numbers
	r := &remoteLines{ctrl: fc.(*net.UnixConn), replies: make(chan procStats, 1), done: make(chan struct{})}
	r.cmd = exec.Command(exe)
	r.cmd.Env = append(os.Environ(), lineEnv+"="+string(b))
	// The child gets copies of the devices' fds; ours stay with tunDev.
	var devs []*os.File
	for i, d := range tuns {
		dup, err := unix.FcntlInt(uintptr(d.fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			r.ctrl.Close()
			return nil, fmt.Errorf("dup tun: %w", err)
		}
		f := os.NewFile(uintptr(dup), [...]string{"tun-gen", "tun-srv"}[i])
		defer f.Close()
		devs = append(devs, f)
	}
	r.cmd.ExtraFiles = append(devs, childEnd)
	r.cmd.Stderr = &r.stderr
	// Dies with us, even on SIGKILL: the namespaces' sweep does the rest.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := startFromStableThread(r.cmd); err != nil {
		r.ctrl.Close()
		return nil, fmt.Errorf("start the delay line's process %s: %w", exe, err)
	}
	ready := make(chan error, 1)
	go r.read(opts.OnDrop, ready)
	select {
	case err = <-ready:
	case <-time.After(10 * time.Second):
		err = errors.New("it did not start within 10s")
	}
	if err != nil {
		_ = r.close()
		return nil, fmt.Errorf("the delay line's process: %w (%s)", err, strings.TrimSpace(r.stderr.String()))
	}
	return r, nil
}

// startFromStableThread starts cmd from a thread that lives as long as the
// process: Pdeathsig fires when the thread that forked the child exits,
// and Go ends the threads of goroutines that exit locked.
func startFromStableThread(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // the thread stays ours while it forks
		err := cmd.Start()
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// read dispatches the child's lines: the first says it is ready, then
// stats replies and drops.
func (r *remoteLines) read(onDrop func(string, Drop, int, time.Time), ready chan<- error) {
	defer close(r.done)
	sc := bufio.NewScanner(r.ctrl)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // stats carry encoded histograms
	first := true
	for sc.Scan() {
		if first {
			first = false
			if sc.Text() != "ready" {
				ready <- fmt.Errorf("said %q", sc.Text())
				return
			}
			ready <- nil
			continue
		}
		var m procMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		if m.Drop != nil && onDrop != nil {
			onDrop(m.Drop.Dir, m.Drop.Why, m.Drop.Size, m.Drop.At)
		}
		if m.Stats != nil {
			select {
			case r.replies <- *m.Stats:
			default: // a reply that came after its request gave up
			}
		}
	}
	if first {
		ready <- errors.New("it exited before it was ready")
	}
}

// stats asks the child for its counters (the last ones once it is gone).
func (r *remoteLines) stats() procStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.replies: // a stale reply
	default:
	}
	if _, err := io.WriteString(r.ctrl, "stats\n"); err == nil {
		select {
		case s := <-r.replies:
			r.last = s
		case <-r.done:
		case <-time.After(5 * time.Second):
		}
	}
	return r.last
}

// close ends the child: its control socket closes, it stops and exits;
// one that does not within 5 s is killed.
func (r *remoteLines) close() error {
	if r.cmd.Process != nil {
		r.last = r.stats()
	}
	_ = r.ctrl.CloseWrite()
	if r.cmd.Process == nil {
		return r.ctrl.Close()
	}
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		err = fmt.Errorf("the delay line's process did not stop; killed: %v", <-exited)
	}
	r.ctrl.Close()
	<-r.done
	if err != nil {
		return fmt.Errorf("%w (%s)", err, strings.TrimSpace(r.stderr.String()))
	}
	return nil
}

// eachThread calls f with the id of every thread of this process; the
// threads made later inherit what f set from the thread that makes them.
func eachThread(f func(tid int)) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			f(tid)
		}
	}
}

// unpin lets a thread run on every CPU the system allows it.
func unpin(tid int) {
	var all unix.CPUSet
	for i := range len(all) * 64 {
		all.Set(i)
	}
	_ = unix.SchedSetaffinity(tid, &all)
}

// ServeLineProcess makes this process a wire's delay line when its parent
// started it as one, and reports whether it was; call it first thing in
// main (see EnableLineProcess), and exit with the error's status after.
func ServeLineProcess() (bool, error) {
	raw, ok := os.LookupEnv(lineEnv)
	if !ok {
		return false, nil
	}
	var spec procSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return true, fmt.Errorf("%s: %w", lineEnv, err)
	}
	return true, serveLines(spec)
}

func serveLines(spec procSpec) error {
	var tuns [2]*tunDev
	for i, fd := range []int{fdUpSrc, fdDownSrc} {
		if err := unix.SetNonblock(fd, true); err != nil {
			return fmt.Errorf("tun fd %d: %w", fd, err)
		}
		stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
		if err != nil {
			return fmt.Errorf("eventfd: %w", err)
		}
		tuns[i] = &tunDev{fd: fd, stop: stop}
	}
	ctrlFile := os.NewFile(fdControl, "wire-control")
	fc, err := net.FileConn(ctrlFile)
	ctrlFile.Close()
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	ctrl := fc.(*net.UnixConn)
	// The wire is the network, neither side: a parent pinned to the
	// server's CPUs (an isolated experiment) does not pin its line.
	eachThread(unpin)
	// Spare Ps: each of the four line threads, woken, finds one idle.
	runtime.GOMAXPROCS(extraProcs + 1)
	if !spec.NoRealtime {
		// Every thread of this process ahead of other processes' (the line
		// threads themselves take SCHED_FIFO): a runtime thread that holds
		// the scheduler's lock or a P, preempted by the loaded machine's
		// other processes, would hold the line up with it (as it did with the
		// line threads alone ahead of the others).
		eachThread(setUrgent)
	}
	var wmu sync.Mutex
	send := func(m procMsg) {
		b, _ := json.Marshal(m)
		wmu.Lock()
		_, _ = ctrl.Write(append(b, '\n'))
		wmu.Unlock()
	}
	opts := Options{NoRealtime: spec.NoRealtime, KeepWarm: spec.KeepWarm, NoLatencyHold: spec.NoHold, NoReplyRead: spec.NoReply, BusyPoll: spec.BusyPoll}
	if spec.Drops {
		opts.OnDrop = func(dir string, why Drop, size int, at time.Time) {
			send(procMsg{Drop: &procDrop{Dir: dir, Why: why, Size: size, At: at}})
		}
	}
	ls := startLocalLines(spec.Up.link(), spec.Down.link(), spec.Up.Seed, spec.Down.Seed, spec.MTU, tuns, opts)
	wmu.Lock()
	_, err = io.WriteString(ctrl, "ready\n")
	wmu.Unlock()
	if err == nil {
		sc := bufio.NewScanner(ctrl)
		for sc.Scan() { // until the parent closes its end (or dies)
			if sc.Text() == "stats" {
				st := ls.stats()
				send(procMsg{Stats: &st})
			}
		}
	}
	ls.close()
	errs := []error{ctrl.Close()}
	for _, d := range tuns {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}
