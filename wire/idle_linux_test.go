package wire

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// idleGaps are the quiet moments before a crossing that the idle tests
// and benchmark measure after.
var idleGaps = []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond}

// oneWayPair is a datagram's way from the generator's namespace to the
// server's through the wire, and the same way over the server namespace's
// loopback: one-way times on one clock, in one process.
type oneWayPair struct {
	wireFrom, wireTo net.PacketConn
	loopFrom, loopTo net.PacketConn
}

func newOneWayPair(t testing.TB, w *Wire) *oneWayPair {
	t.Helper()
	listen := func(ns *Namespace, ip string) net.PacketConn {
		c, err := ns.ListenPacket("udp4", net.JoinHostPort(ip, "0"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return &oneWayPair{
		wireFrom: listen(w.Gen(), w.Gen().IP().String()), wireTo: listen(w.Srv(), w.Srv().IP().String()),
		loopFrom: listen(w.Srv(), "127.0.0.1"), loopTo: listen(w.Srv(), "127.0.0.1"),
	}
}

// send times one datagram from one end to the other: from just before the
// write to the reader's return.
func send(t testing.TB, from, to net.PacketConn) time.Duration {
	t.Helper()
	var b [64]byte
	_ = to.SetReadDeadline(time.Now().Add(2 * time.Second))
	t0 := time.Now()
	if _, err := from.WriteTo(b[:16], to.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := to.ReadFrom(b[:]); err != nil {
		t.Fatal(err)
	}
	return time.Since(t0)
}

// idleVariants are the wire settings BenchmarkWireIdleGap compares: idle
// CPUs left to halt, held polling while packets flow (the default), and
// that with the readers kept warm too.
var idleVariants = []struct {
	name string
	opts Options
}{
	{"halt", Options{NoLatencyHold: true}},
	{"hold", Options{}},
	{"hold+poll", Options{BusyPoll: true}},
}

// idleBlock is how many crossings a variant makes before the next takes
// its turn.
const idleBlock = 10

// variantRun is one variant's wire and what its crossings measured.
type variantRun struct {
	w          *Wire
	p          *oneWayPair
	wire, loop []time.Duration
	cpu, poll  time.Duration // its line process's CPU, the machine's polling idle CPUs, over its blocks
	wall       time.Duration // its blocks' time
	packets    int64
}

// BenchmarkWireIdleGap: one datagram through a wire of 0 ms after 1, 10
// and 100 ms of nothing, beside the same over loopback, for each of
// idleVariants in turn (blocks of idleBlock, each after a crossing that
// starts its flow; a halt block waits until no other wire holds the
// request). Per variant: the p50 and p99 of the wire, of loopback and of
// what the wire adds to each crossing over its loopback twin (target ≤ 50
// µs), the line process's CPU per packet (with idle gaps, mostly the Go
// runtime's sysmon waking after each), and how much of a CPU the machine's
// idle CPUs spent polling (the hold's price: no process pays it, the host
// does; up to 100 % per CPU). Then, nothing flowing and every hold
// released, what each idle wire costs: its CPU and the polling.
func BenchmarkWireIdleGap(b *testing.B) {
	runs := make([]*variantRun, len(idleVariants))
	for i, v := range idleVariants {
		w := startWire(b, Config{}, v.opts)
		runs[i] = &variantRun{w: w, p: newOneWayPair(b, w)}
		send(b, runs[i].p.wireFrom, runs[i].p.wireTo) // the first crossing: routes and caches
	}
	for _, gap := range idleGaps {
		b.Run("gap="+gap.String(), func(b *testing.B) {
			n := max(b.N, 20)
			for _, r := range runs {
				*r = variantRun{w: r.w, p: r.p}
			}
			for done := 0; done < n; done += idleBlock {
				for i, r := range runs {
					if idleVariants[i].opts.NoLatencyHold {
						waitHoldsReleased(b, runs)
					}
					send(b, r.p.wireFrom, r.p.wireTo) // starts the flow
					s0 := r.w.Stats()                 // (answering costs the line process CPU: not in the block's)
					cpu0, poll0, t0 := lineProcessCPU(b, r.w), pollingIdle(), time.Now()
					ws, ls := r.p.idleCrossings(b, gap, min(idleBlock, n-done))
					r.cpu += lineProcessCPU(b, r.w) - cpu0
					r.poll += pollingIdle() - poll0
					r.wall += time.Since(t0)
					s1 := r.w.Stats()
					r.packets += s1.Up.Passed + s1.Down.Passed - s0.Up.Passed - s0.Down.Passed
					r.wire, r.loop = append(r.wire, ws...), append(r.loop, ls...)
				}
			}
			for i, r := range runs {
				name := idleVariants[i].name
				wire, loop, added := p50p99(r.wire), p50p99(r.loop), p50p99(pairedDiffs(r.wire, r.loop))
				b.ReportMetric(us(wire[0]), name+"-wire-p50-µs")
				b.ReportMetric(us(wire[1]), name+"-wire-p99-µs")
				b.ReportMetric(us(loop[0]), name+"-loop-p50-µs")
				b.ReportMetric(us(loop[1]), name+"-loop-p99-µs")
				b.ReportMetric(us(added[0]), name+"-added-p50-µs")
				b.ReportMetric(us(added[1]), name+"-added-p99-µs")
				b.ReportMetric(us(r.cpu)/float64(max(r.packets, 1)), name+"-cpu-µs/packet")
				b.ReportMetric(100*r.poll.Seconds()/r.wall.Seconds(), name+"-polling-%cpu")
			}
		})
	}
	b.Run("idle", func(b *testing.B) {
		waitHoldsReleased(b, runs)
		cpu0 := make([]time.Duration, len(runs))
		for i, r := range runs {
			cpu0[i] = lineProcessCPU(b, r.w)
		}
		poll0, t0 := pollingIdle(), time.Now()
		time.Sleep(2 * time.Second) // nothing flows: what the wires cost meanwhile
		wall := time.Since(t0)
		for i, r := range runs {
			b.ReportMetric(100*(lineProcessCPU(b, r.w)-cpu0[i]).Seconds()/wall.Seconds(), idleVariants[i].name+"-cpu-%")
		}
		b.ReportMetric(100*(pollingIdle()-poll0).Seconds()/wall.Seconds(), "polling-%cpu")
	})
}

// idleCrossings measures n crossings each after gap of nothing, through the
// wire and over loopback alternately, so both meet the same moments of
// the machine.
func (p *oneWayPair) idleCrossings(t testing.TB, gap time.Duration, n int) (wire, loop []time.Duration) {
	t.Helper()
	for range n {
		time.Sleep(gap) // the idle gap is what is measured, not a wait for a condition
		wire = append(wire, send(t, p.wireFrom, p.wireTo))
		time.Sleep(gap)
		loop = append(loop, send(t, p.loopFrom, p.loopTo))
	}
	return wire, loop
}

// waitHoldsReleased waits until no wire of runs holds its request (holdFor
// after its last packet), so that a halt block measures halting CPUs.
func waitHoldsReleased(t testing.TB, runs []*variantRun) {
	t.Helper()
	deadline := time.Now().Add(holdFor + 5*time.Second)
	for _, r := range runs {
		for r.w.Stats().Hold.Held {
			if time.Now().After(deadline) {
				t.Fatalf("a wire still holds its request %v after holdFor", time.Until(deadline)+holdFor+5*time.Second)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// pollingIdle is how long the machine's CPUs have spent in the POLL idle
// state (cpuidle; 0 where the kernel does not say).
func pollingIdle() time.Duration {
	states, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*")
	var sum time.Duration
	for _, st := range states {
		name, err := os.ReadFile(st + "/name")
		if err != nil || strings.TrimSpace(string(name)) != "POLL" {
			continue
		}
		raw, err := os.ReadFile(st + "/time")
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil {
			sum += time.Duration(v) * time.Microsecond
		}
	}
	return sum
}

// pairedDiffs is what each wire crossing took more than the loopback
// crossing that followed it: the wire's own part of each moment (a
// difference of two p99s mixes moments, and can come out negative).
func pairedDiffs(wire, loop []time.Duration) []time.Duration {
	d := make([]time.Duration, len(wire))
	for i := range wire {
		d[i] = wire[i] - loop[i]
	}
	return d
}

func p50p99(s []time.Duration) [2]time.Duration {
	s = slices.Clone(s)
	slices.Sort(s)
	return [2]time.Duration{s[len(s)/2], s[len(s)*99/100]}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
