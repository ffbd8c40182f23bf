package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// runNetns is where iproute2 (and netns.NewNamed) keep named namespaces.
const runNetns = "/run/netns"

// Prefix starts the name of every namespace a wire creates.
const Prefix = "mbw-"

// tunName is the TUN device's name in each namespace (each has its own).
const tunName = "mbw0"

// Namespace is one side of the wire: a named network namespace.
type Namespace struct {
	name string
	h    netns.NsHandle
	ip   net.IP
}

// Name is the namespace's name, as `ip netns exec NAME` takes it.
func (n *Namespace) Name() string { return n.name }

// IP is the side's address on the wire.
func (n *Namespace) IP() net.IP { return n.ip }

// Do runs f on an OS thread switched into the namespace: every socket f
// creates belongs to it for life. The thread is switched back before it is
// released; one that cannot be is never reused (its goroutine exits locked).
func (n *Namespace) Do(f func() error) error { return inNamespace(n.h, f) }

// Listen listens in the namespace (e.g. "tcp", "10.201.0.2:0"); connections
// it accepts are in the namespace too, whatever thread accepts them.
func (n *Namespace) Listen(network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := n.Do(func() (err error) {
		ln, err = net.Listen(network, addr)
		return err
	})
	return ln, err
}

// ListenPacket listens for datagrams in the namespace.
func (n *Namespace) ListenPacket(network, addr string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := n.Do(func() (err error) {
		pc, err = net.ListenPacket(network, addr)
		return err
	})
	return pc, err
}

// DialContext dials from the namespace. An IPv4 TCP address (the wire's
// own) is dialed by dialTCP4: the socket is made on a switched thread, the
// connect runs on the caller's goroutine. Anything else runs the whole
// dial on the switched thread (net.Dialer creates the socket on the
// calling thread, and a Control hook would run after it exists, too late).
func (n *Namespace) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if network == "tcp" || network == "tcp4" {
		if ap, err := netip.ParseAddrPort(addr); err == nil && ap.Addr().Is4() {
			return n.dialTCP4(ctx, network, ap)
		}
	}
	var c net.Conn
	err := n.Do(func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Dialer returns a dialer of the shape http.Transport.DialContext takes.
func (n *Namespace) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return n.DialContext
}

func inNamespace(target netns.NsHandle, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		back, err := switchedFor(target, f)
		if back {
			runtime.UnlockOSThread()
		} // else it stays locked: the thread exits with this goroutine
		errc <- err
	}()
	return <-errc
}

// switchedFor runs f on the calling thread, which its caller has locked,
// switched into target, then switches the thread back to the process's own
// namespace (ownNetns). back reports whether it did: a thread that could
// not be switched back must stay locked and end with its goroutine.
func switchedFor(target netns.NsHandle, f func() error) (back bool, err error) {
	own, err := ownNetns()
	if err != nil {
		return true, fmt.Errorf("wire: own namespace: %w", err)
	}
	if err := unix.Setns(int(target), unix.CLONE_NEWNET); err != nil {
		return true, fmt.Errorf("wire: enter namespace: %w", os.NewSyscallError("setns", err))
	}
	ferr := f()
	if err := unix.Setns(int(own), unix.CLONE_NEWNET); err != nil {
		return false, errors.Join(ferr, fmt.Errorf("wire: leave namespace: %w", os.NewSyscallError("setns", err)))
	}
	return true, ferr
}

// newSide creates the named namespace, its TUN device (opened from inside,
// since TUNSETIFF makes the device in the caller's namespace) with ipv6
// off (no router solicitations on the wire), then configures the device
// and lo over netlink.
func newSide(name string, ip net.IP, mtu int) (*Namespace, *tunDev, error) {
	type made struct {
		h   netns.NsHandle
		tun *tunDev
		err error
	}
	mc := make(chan made, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			mc <- made{err: err}
			return
		}
		defer orig.Close()
		h, err := netns.NewNamed(name) // switches this thread into it
		if err != nil {
			_ = netns.Set(orig)
			mc <- made{err: fmt.Errorf("create namespace %s: %w", name, err)} // stays locked: the thread exits
			return
		}
		tun, terr := openTUN(tunName)
		_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+tunName+"/disable_ipv6", []byte("1"), 0)
		if err := netns.Set(orig); err != nil {
			mc <- made{h: h, tun: tun, err: fmt.Errorf("leave namespace %s: %w", name, err)}
			return
		}
		runtime.UnlockOSThread()
		mc <- made{h: h, tun: tun, err: terr}
	}()
	m := <-mc
	ns := &Namespace{name: name, h: m.h, ip: ip}
	if m.err != nil {
		if m.tun != nil {
			m.tun.Close()
		}
		ns.remove()
		return nil, nil, m.err
	}
	if err := configure(ns, ip, mtu); err != nil {
		m.tun.Close()
		ns.remove()
		return nil, nil, fmt.Errorf("namespace %s: %w", name, err)
	}
	return ns, m.tun, nil
}

func configure(ns *Namespace, ip net.IP, mtu int) error {
	h, err := netlink.NewHandleAt(ns.h)
	if err != nil {
		return fmt.Errorf("netlink: %w", err)
	}
	defer h.Close()
	lo, err := h.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("lo: %w", err)
	}
	if err := h.LinkSetUp(lo); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	tun, err := h.LinkByName(tunName)
	if err != nil {
		return fmt.Errorf("%s: %w", tunName, err)
	}
	if err := h.LinkSetMTU(tun, mtu); err != nil {
		return fmt.Errorf("%s mtu %d: %w", tunName, mtu, err)
	}
	if err := h.AddrAdd(tun, &netlink.Addr{IPNet: &net.IPNet{IP: ip, Mask: net.CIDRMask(30, 32)}}); err != nil {
		return fmt.Errorf("%s address %v: %w", tunName, ip, err)
	}
	if err := h.LinkSetUp(tun); err != nil {
		return fmt.Errorf("%s up: %w", tunName, err)
	}
	return nil
}

// remove deletes the namespace's name; the kernel frees it once the last
// socket and fd in it are closed.
func (n *Namespace) remove() error {
	if n.h.IsOpen() {
		n.h.Close()
	}
	err := netns.DeleteNamed(n.name)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.EINVAL) {
		_ = os.Remove(filepath.Join(runNetns, n.name))
		return nil
	}
	return err
}

// checkAvailable names what the machine lacks, in one line.
func checkAvailable() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) to create network namespaces; running as uid %d", ErrUnavailable, os.Geteuid())
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		return fmt.Errorf("%w: /dev/net/tun is missing (modprobe tun, or give the container the device)", ErrUnavailable)
	}
	return nil
}

// SweepStale removes the mbw-* namespaces whose creating process is gone
// (a run that was killed) and returns their names.
func SweepStale() ([]string, error) {
	entries, err := os.ReadDir(runNetns)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, ok := ownerPID(e.Name())
		if !ok || alive(pid) {
			continue
		}
		ns := &Namespace{name: e.Name(), h: netns.None()}
		if err := ns.remove(); err != nil {
			errs = append(errs, fmt.Errorf("wire: remove stale namespace %s: %w", e.Name(), err))
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, errors.Join(errs...)
}

// ownerPID reads the pid out of "mbw-<pid>-<n>-gen".
func ownerPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return 0, false
	}
	p, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	return pid, err == nil && pid > 0
}

func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// pairName is the first free mbw-<pid>-<n> (a process may run several wires).
func pairName() string {
	for n := 1; ; n++ {
		base := fmt.Sprintf("%s%d-%d", Prefix, os.Getpid(), n)
		if _, err := os.Stat(filepath.Join(runNetns, base+"-gen")); errors.Is(err, os.ErrNotExist) {
			return base
		}
	}
}

// realtime asks the kernel to run the calling (locked) thread under
// SCHED_FIFO, so that a releaser wakes at its deadline even when other
// processes keep every CPU busy; it reports whether it could. The thread
// runs one locked goroutine of its own (a releaser or a reader: system
// calls and a spin of at most the lead), and the kernel's RT throttling
// bounds it. Not on a single CPU: there a SCHED_FIFO thread that waits for
// one that is not never lets it run.
func realtime() bool { return setRealtime(0) }

// lineRTPriority is the line threads': above the urgent threads (so that
// none of the runtime's loops ever holds a releaser up), below the
// kernel's own real-time threads.
const (
	urgentRTPriority = 10
	lineRTPriority   = urgentRTPriority + 1
	// endsRTPriority is the wire's tests' own (both ends of their
	// connections): below every thread of the line's process, so that
	// none of those waits a time slice behind them.
	endsRTPriority = urgentRTPriority - 5
)

// setUrgent puts a thread (and those it makes later) under SCHED_RR at
// urgentRTPriority, ahead of every other process's threads, where it can
// (root, two CPUs), and at nice −20 where it cannot. Not SCHED_FIFO: the
// Go runtime's loops are not written for it; an equal-priority FIFO
// thread that spins is never preempted (measured: with every thread of a
// line process under SCHED_FIFO, its background sweeper spun on both CPUs
// waiting for a thread that could not run, and the wire stopped moving
// packets for good). Under SCHED_RR such a spin ends with its time slice.
func setUrgent(tid int) { setUrgentAt(tid, urgentRTPriority) }

func setUrgentAt(tid int, priority uint32) {
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, -20)
	setPolicy(tid, unix.SCHED_RR, priority)
}

// setNormal puts a thread back under the default policy at nice 0.
func setNormal(tid int) {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	_ = unix.SchedSetAttr(tid, &attr, 0)
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, 0)
}

func setRealtime(tid int) bool { return setPolicy(tid, unix.SCHED_FIFO, lineRTPriority) }

func setPolicy(tid int, policy uint32, priority uint32) bool {
	var cpus unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cpus); err != nil || cpus.Count() < 2 {
		return false
	}
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: policy, Priority: priority}
	return unix.SchedSetAttr(tid, &attr, 0) == nil
}

// OpenNamespace opens the namespace of a wire another process made (an
// isolated experiment's serving child), by name, to dial from it; Close
// releases it (the wire stays its maker's).
func OpenNamespace(name string) (*Namespace, error) {
	if !strings.HasPrefix(name, Prefix) {
		return nil, fmt.Errorf("wire: %q is not a wire's namespace (%s…)", name, Prefix)
	}
	h, err := netns.GetFromName(name)
	if err != nil {
		return nil, fmt.Errorf("wire: open namespace %s: %w", name, err)
	}
	return &Namespace{name: name, h: h}, nil
}

// Close releases an opened namespace's handle.
func (n *Namespace) Close() error { return n.h.Close() }
