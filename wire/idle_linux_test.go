package wire

import (
	"fmt"
	"net"
	"slices"
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

// idleAdded measures n crossings each after gap of nothing, through the
// wire and over loopback alternately (so both meet the same moments of the
// machine), and returns the p50 and p99 of each.
func (p *oneWayPair) idleAdded(t testing.TB, gap time.Duration, n int) (wire, loop [2]time.Duration) {
	t.Helper()
	ws, ls := make([]time.Duration, 0, n), make([]time.Duration, 0, n)
	for range n {
		time.Sleep(gap) // the idle gap is what is measured, not a wait for a condition
		ws = append(ws, send(t, p.wireFrom, p.wireTo))
		time.Sleep(gap)
		ls = append(ls, send(t, p.loopFrom, p.loopTo))
	}
	q := func(s []time.Duration) [2]time.Duration {
		slices.Sort(s)
		return [2]time.Duration{s[len(s)/2], s[len(s)*99/100]}
	}
	return q(ws), q(ls)
}

// BenchmarkWireIdleGap: one datagram through a wire of 0 ms after 1, 10
// and 100 ms of nothing, beside the same over loopback, with the wire's
// readers asleep between packets and kept warm (Options.KeepWarm);
// reports p50 and p99 of both and what the wire adds (target ≤ 50 µs),
// the wire process's CPU in percent of one CPU and per packet, and what an
// idle wire costs once its readers' timers have stopped.
func BenchmarkWireIdleGap(b *testing.B) {
	for _, warm := range []bool{false, true} {
		b.Run(fmt.Sprintf("warm=%v", warm), func(b *testing.B) {
			w := startWire(b, Config{}, Options{KeepWarm: warm})
			p := newOneWayPair(b, w)
			send(b, p.wireFrom, p.wireTo) // the first crossing: routes and caches
			for _, gap := range idleGaps {
				b.Run("gap="+gap.String(), func(b *testing.B) {
					n := max(b.N, 20)
					cpu0, t0, s0 := lineProcessCPU(b, w), time.Now(), w.Stats()
					wire, loop := p.idleAdded(b, gap, n)
					cpu, wall, s1 := lineProcessCPU(b, w)-cpu0, time.Since(t0), w.Stats()
					us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
					b.ReportMetric(us(wire[0]), "wire-p50-µs")
					b.ReportMetric(us(wire[1]), "wire-p99-µs")
					b.ReportMetric(us(loop[0]), "loop-p50-µs")
					b.ReportMetric(us(loop[1]), "loop-p99-µs")
					b.ReportMetric(us(wire[0]-loop[0]), "added-p50-µs")
					b.ReportMetric(us(wire[1]-loop[1]), "added-p99-µs")
					pkts := float64(s1.Up.Passed + s1.Down.Passed - s0.Up.Passed - s0.Down.Passed)
					b.ReportMetric(float64(cpu.Microseconds())/max(pkts, 1), "wire-cpu-µs/packet")
					b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "wire-cpu-%")
				})
			}
			b.Run("idle", func(b *testing.B) {
				time.Sleep(awakeFor) // the readers' timers stop awakeFor after the last packet
				cpu0, t0 := lineProcessCPU(b, w), time.Now()
				time.Sleep(2 * time.Second) // nothing flows: what the wire costs meanwhile
				b.ReportMetric(100*(lineProcessCPU(b, w)-cpu0).Seconds()/time.Since(t0).Seconds(), "wire-cpu-%")
			})
		})
	}
}
