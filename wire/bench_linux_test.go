package wire

import (
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func cpuTime() time.Duration {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bulkRead reads n bytes of a bulk download from addr (dialed with dial).
func bulkRead(b *testing.B, dial func() net.Conn, n int64) (time.Duration, time.Duration) {
	c := dial()
	defer c.Close()
	buf := make([]byte, 256<<10)
	if _, err := io.ReadFull(c, buf[:1]); err != nil {
		b.Fatal(err)
	}
	cpu0, t0 := cpuTime(), time.Now()
	if _, err := io.CopyBuffer(io.Discard, io.LimitReader(c, n), buf); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0), cpuTime() - cpu0
}

// BenchmarkWireBulk moves bulk TCP through a wire of 0 ms and no rate
// (target ≥ 1 Gbit/s) at the default MTU (1500) and at 9000 and 65535,
// (and at 1500 without the reply read, whose writer takes the data the
// server queues after each ACK), and reports the packets per second and
// the CPU per packet the wire adds: this process's and the wire's own
// process's CPU minus that of the same download over the server
// namespace's loopback (both TCP ends are in this process).
func BenchmarkWireBulk(b *testing.B) {
	for _, v := range []struct {
		name string
		mtu  int
		opts Options
	}{{"mtu=1500", 1500, Options{}}, {"mtu=1500,noReplyRead", 1500, Options{NoReplyRead: true}}, {"mtu=9000", 9000, Options{}}, {"mtu=65535", 65535, Options{}}} {
		b.Run(v.name, func(b *testing.B) {
			w := startWire(b, Config{MTU: v.mtu}, v.opts)
			addr := serve(b, w, bulk)
			lo, err := w.Srv().Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer lo.Close()
			go func() {
				for {
					c, err := lo.Accept()
					if err != nil {
						return
					}
					go func() { defer c.Close(); bulk(c) }()
				}
			}()
			const n = 256 << 20
			_, loopCPU := bulkRead(b, func() net.Conn {
				var c net.Conn
				if err := w.Srv().Do(func() (err error) { c, err = net.Dial("tcp", lo.Addr().String()); return err }); err != nil {
					b.Fatal(err)
				}
				return c
			}, n)
			b.SetBytes(n)
			b.ResetTimer()
			var wall, cpu time.Duration
			p0 := w.Stats()
			line0 := lineProcessCPU(b, w)
			for range b.N {
				dt, dc := bulkRead(b, func() net.Conn { return dial(b, w, addr) }, n)
				wall += dt
				cpu += dc
			}
			cpu += lineProcessCPU(b, w) - line0
			b.StopTimer()
			p1 := w.Stats()
			pkts := float64(p1.Up.Passed + p1.Down.Passed - p0.Up.Passed - p0.Down.Passed)
			b.ReportMetric(float64(n*b.N)*8/wall.Seconds()/1e9, "Gbit/s")
			b.ReportMetric(pkts/wall.Seconds(), "packets/s")
			b.ReportMetric(float64(cpu-time.Duration(b.N)*loopCPU)/pkts, "wire-cpu-ns/packet")
		})
	}
}

// lineProcessCPU is the CPU time of the wire's own process (0 when the
// line runs in this one): the nanoseconds each of its threads has run
// (/proc/PID/task/*/schedstat; its threads live as long as it does).
func lineProcessCPU(b testing.TB, w *Wire) time.Duration {
	if w.remote == nil {
		return 0
	}
	dir := fmt.Sprintf("/proc/%d/task", w.remote.cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, t := range tasks {
		raw, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue // a thread that has just exited
		}
		f := strings.Fields(string(raw))
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatalf("%s/%s/schedstat: %q", dir, t.Name(), raw)
		}
		sum += time.Duration(ns)
	}
	return sum
}

// BenchmarkWireRoundTrip: a 1-byte request/response on a kept-alive
// connection, through a wire of 0 ms and over loopback; reports both p50s
// and what the wire adds (target ≤ 50 µs). A round trip through the wire
// wakes its two reader threads, each on a CPU that is often idle: in a
// KVM guest that halts its idle vCPUs at once (guest halt polling 0, as
// this machine's kernel command line sets it), each wake-up is a vCPU's
// exit from halt. The guest's halt-poll setting is reported beside the
// figures (halt-poll-µs; absent outside such a guest); scripts/bench-wire.sh
// runs it both ways. While packets flow the line holds a wake-up latency
// request of 0 (latencyHold), which keeps idle vCPUs polling whatever that
// setting says.
func BenchmarkWireRoundTrip(b *testing.B) {
	w := startWire(b, Config{}, Options{})
	far := dial(b, w, serve(b, w, echo))
	defer far.Close()
	lo, err := w.Srv().Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer lo.Close()
	go func() {
		for {
			c, err := lo.Accept()
			if err != nil {
				return
			}
			go echo(c)
		}
	}()
	var near net.Conn
	if err := w.Srv().Do(func() (err error) { near, err = net.Dial("tcp", lo.Addr().String()); return err }); err != nil {
		b.Fatal(err)
	}
	defer near.Close()
	wireRTT := make([]time.Duration, 0, b.N)
	loopRTT := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		wireRTT = append(wireRTT, pingOnce(b, far))
		loopRTT = append(loopRTT, pingOnce(b, near))
	}
	b.StopTimer()
	slices.Sort(wireRTT)
	slices.Sort(loopRTT)
	b.ReportMetric(float64(wireRTT[len(wireRTT)/2].Microseconds()), "wire-p50-µs")
	b.ReportMetric(float64(loopRTT[len(loopRTT)/2].Microseconds()), "loopback-p50-µs")
	b.ReportMetric(float64((wireRTT[len(wireRTT)/2] - loopRTT[len(loopRTT)/2]).Microseconds()), "added-p50-µs")
	if ns, ok := guestHaltPollNs(); ok {
		b.ReportMetric(float64(ns)/1e3, "halt-poll-µs")
	}
}

// guestHaltPollNs is how long an idle vCPU of a KVM guest polls before it
// halts (the haltpoll cpuidle driver's guest_halt_poll_ns), when the
// machine is such a guest.
func guestHaltPollNs() (int64, bool) {
	raw, err := os.ReadFile("/sys/module/haltpoll/parameters/guest_halt_poll_ns")
	if err != nil {
		return 0, false
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	return ns, err == nil
}
