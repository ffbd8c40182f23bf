package wire

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// connectVariants are the wire settings BenchmarkWireIdleConnect compares:
// idle CPUs left to halt, held polling, and that with the writer taking
// the far kernel's reply (the default).
var connectVariants = []struct {
	name string
	opts Options
}{
	{"halt", Options{NoLatencyHold: true, NoReplyRead: true}},
	{"hold", Options{NoReplyRead: true}},
	{"hold+reply", Options{}},
	{"hold+reply+poll", Options{BusyPoll: true}},
}

// connectOnce times a TCP connect from a socket made in ns to addr: the SYN
// out and the SYN-ACK back, nothing of Go's poller or of a namespace
// switch. The connection is then reset (one packet, no TIME_WAIT).
func connectOnce(t testing.TB, ns *Namespace, addr netip.AddrPort) time.Duration {
	t.Helper()
	var fd int
	if err := ns.Do(func() (err error) {
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	to := &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	t0 := time.Now()
	if err := unix.Connect(fd, to); err != nil {
		t.Fatalf("connect %v: %v", addr, err)
	}
	d := time.Since(t0)
	_ = unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	return d
}

// BenchmarkWireIdleConnect: a TCP connect through a wire of 0 ms after 1,
// 10 and 100 ms of nothing, beside the same connect over the server
// namespace's loopback, for each of connectVariants in turn (blocks of
// idleBlock, each after a connect that starts its flow). The SYN-ACK is
// the server kernel's reply made inside the line's write of the SYN: with
// hold+reply the writer takes it, without it the down reader wakes for it.
// Per variant: p50 and p99 of the wire, of loopback and of what the wire
// adds to each connect over its loopback twin, and the line process's CPU
// per packet.
func BenchmarkWireIdleConnect(b *testing.B) {
	type target struct{ wire, loop netip.AddrPort }
	runs := make([]*variantRun, len(connectVariants))
	targets := make([]target, len(connectVariants))
	for i, v := range connectVariants {
		w := startWire(b, Config{}, v.opts)
		runs[i] = &variantRun{w: w}
		lo, err := w.Srv().Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { lo.Close() })
		go discardEach(lo)
		targets[i] = target{netip.MustParseAddrPort(serve(b, w, discard)), lo.Addr().(*net.TCPAddr).AddrPort()}
		connectOnce(b, w.Gen(), targets[i].wire) // the first: routes and caches
	}
	for _, gap := range idleGaps {
		b.Run("gap="+gap.String(), func(b *testing.B) {
			n := max(b.N, 20)
			for _, r := range runs {
				*r = variantRun{w: r.w}
			}
			for done := 0; done < n; done += idleBlock {
				for i, r := range runs {
					if connectVariants[i].opts.NoLatencyHold {
						waitHoldsReleased(b, runs)
					}
					tg := targets[i]
					connectOnce(b, r.w.Gen(), tg.wire) // starts the flow
					s0 := r.w.Stats()
					cpu0 := lineProcessCPU(b, r.w)
					for range min(idleBlock, n-done) {
						time.Sleep(gap) // the idle gap is what is measured, not a wait for a condition
						r.wire = append(r.wire, connectOnce(b, r.w.Gen(), tg.wire))
						time.Sleep(gap)
						r.loop = append(r.loop, connectOnce(b, r.w.Srv(), tg.loop))
					}
					r.cpu += lineProcessCPU(b, r.w) - cpu0
					s1 := r.w.Stats()
					r.packets += s1.Up.Passed + s1.Down.Passed - s0.Up.Passed - s0.Down.Passed
				}
			}
			for i, r := range runs {
				name := connectVariants[i].name
				wire, loop, added := p50p99(r.wire), p50p99(r.loop), p50p99(pairedDiffs(r.wire, r.loop))
				b.ReportMetric(us(wire[0]), name+"-wire-p50-µs")
				b.ReportMetric(us(wire[1]), name+"-wire-p99-µs")
				b.ReportMetric(us(loop[0]), name+"-loop-p50-µs")
				b.ReportMetric(us(loop[1]), name+"-loop-p99-µs")
				b.ReportMetric(us(added[0]), name+"-added-p50-µs")
				b.ReportMetric(us(added[1]), name+"-added-p99-µs")
				b.ReportMetric(us(r.cpu)/float64(max(r.packets, 1)), name+"-cpu-µs/packet")
			}
		})
	}
}

// discard reads a connection until its peer closes or resets it.
func discard(c net.Conn) {
	var b [512]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			return
		}
	}
}

func discardEach(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() { defer c.Close(); discard(c) }()
	}
}
