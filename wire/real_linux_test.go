package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/realtimetest"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// bulk writes zeros until the peer goes.
func bulk(c net.Conn) {
	buf := make([]byte, 64<<10)
	for {
		if _, err := c.Write(buf); err != nil {
			break
		}
	}
	if raw, err := c.(*net.TCPConn).SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
				_ = fmt.Sprintf("bulk sender: cwnd %d rtt %dus snd_wnd? retrans %d lost %d pacing %d delivery %d busy %dus rwnd_limited %dus sndbuf_limited %dus\n", ti.Snd_cwnd, ti.Rtt, ti.Total_retrans, ti.Lost, ti.Pacing_rate, ti.Delivery_rate, ti.Busy_time, ti.Rwnd_limited, ti.Sndbuf_limited)
			}
		})
	}
}

// pingOnce sends one byte on c and waits for the echo.
func pingOnce(t testing.TB, c net.Conn) time.Duration {
	t.Helper()
	var b [1]byte
	t0 := time.Now()
	_ = c.SetDeadline(t0.Add(30 * time.Second)) // a lost answer fails the test, not CI's clock
	if _, err := c.Write(b[:]); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, b[:]); err != nil {
		t.Fatal(err)
	}
	return time.Since(t0)
}

// payloadShare is the part of a full 1500-byte IP packet that is TCP
// payload: 20 bytes of IP header, 20 of TCP and 12 of timestamps go
// through the wire's rate too.
const payloadShare = 1448.0 / 1500

// TestRate: a 10 Mbit/s wire delivers a bulk TCP download at 10 Mbit/s
// of IP packets (TCP payload: 1448 of every 1500 bytes) over 5 s. The
// extra wait of small requests sent during it is logged: Linux's cubic
// leaves slow start on rising delay (HyStart), so it keeps only a short
// standing queue, not a full one; TestBufferbloat fills the queue.
func TestRate(t *testing.T) {
	const rate = 10e6 // bit/s
	// Both TCP ends (this process) ahead of other processes: a receiver
	// stalled by them leaves the rate's time unused (under -race on a
	// loaded machine the goodput falls below the rate). A stall only ever
	// lowers the goodput, so a round judges rate ÷ goodput: above the band
	// is a disturbed round, measured again (best of three); below, the
	// wire passed more than its rate.
	urgentWhile(t)
	w := startWire(t, Config{Link: Link{Rate: mbit(10), Queue: Queue{Bytes: 1 << 20}}}, Options{})
	bulkAddr := serve(t, w, bulk)
	ping := dial(t, w, serve(t, w, echo))
	defer ping.Close()
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		waitFor(t, "an empty wire", func() bool { return w.Stats().Down.InFlight == 0 })
		idle := time.Hour
		for range 5 {
			idle = min(idle, pingOnce(t, ping))
		}
		c := dial(t, w, bulkAddr)
		defer c.Close()
		buf := make([]byte, 256<<10)
		if _, err := io.ReadFull(c, buf[:1]); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		before := w.Stats().Down.PassedBytes
		var probes []time.Duration
		var wg sync.WaitGroup
		wg.Go(func() { // a small request every 400 ms from 1 s in
			for at := time.Second; at < 4800*time.Millisecond; at += 400 * time.Millisecond {
				time.Sleep(time.Until(start.Add(at)))
				probes = append(probes, pingOnce(t, ping)-idle)
			}
		})
		_ = c.SetReadDeadline(start.Add(5 * time.Second))
		got := 1 // the first byte
		for {
			n, err := c.Read(buf)
			got += n
			if err != nil {
				break
			}
		}
		elapsed := time.Since(start)
		after := w.Stats().Down.PassedBytes
		wg.Wait()
		goodput := float64(got) * 8 / elapsed.Seconds()
		line := float64(after-before) * 8 / elapsed.Seconds()
		s := w.Stats().Down
		slices.Sort(probes)
		t.Logf("over %v: TCP payload %.4g Mbit/s, IP packets through the wire %.4g Mbit/s; released late p99 %.3f ms max %.3f ms",
			elapsed, goodput/1e6, line/1e6, s.Late["p(99)"], s.Late["max"])
		t.Logf("idle round trip %v; extra wait of small requests during the download %v; longest queue wait %.1f ms, drops %v",
			idle, probes, s.Queued["max"], s.Dropped)
		r.Band("(10 Mbit/s × 1448/1500) ÷ goodput", rate*payloadShare/goodput, 1/1.02, 1/0.98)
		if line > rate*1.02 {
			t.Errorf("the wire passed %.4g Mbit/s, over its 10 Mbit/s", line/1e6)
		}
	})
}

// TestBufferbloat: a sender faster than the rate (UDP at 12 Mbit/s, no
// congestion control) keeps a 1 MiB queue full; a small request sent
// meanwhile waits queue ÷ rate = 0.839 s more than on the idle wire, and
// the excess is dropped at the tail.
func TestBufferbloat(t *testing.T) {
	const rate = 10e6
	queue := int64(1 << 20)
	// The flood's thread ahead of other processes: stalled by them, it
	// lets the queue drain before a probe.
	urgentWhile(t)
	w := startWire(t, Config{Link: Link{Rate: mbit(10), Queue: Queue{Bytes: queue}}}, Options{})
	ping := dial(t, w, serve(t, w, echo))
	defer ping.Close()
	idle := time.Hour
	for range 5 {
		idle = min(idle, pingOnce(t, ping))
	}
	sink, err := w.Gen().ListenPacket("udp", net.JoinHostPort(w.Gen().IP().String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	go func() { // discard the flood
		b := make([]byte, 2048)
		for {
			if _, _, err := sink.ReadFrom(b); err != nil {
				return
			}
		}
	}()
	var flood net.Conn
	if err := w.Srv().Do(func() (err error) {
		flood, err = net.Dial("udp", sink.LocalAddr().String())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	// A flood held up by other processes lets the queue drain (by the
	// rate: 1.25 kB a millisecond) under a probe that is then answered
	// sooner; such a probe proves nothing and is sent again. A disturbance
	// can also shorten a wait without a pause the flood sees, even on a
	// quiet machine, and a slow reader lengthens one, so the median of five
	// undisturbed probes is judged, up to twelve probes in a round. A round
	// in which the flood paused under more than seven is a disturbed one:
	// each round starts its own flood in a quiet moment, and one the
	// hypervisor took the CPUs in (the flood can then pause under every
	// probe) is measured again.
	const stalled = 10 * time.Millisecond
	round := 0
	realtimetest.Rounds(t, 3, func(r *realtimetest.Round) {
		round++
		waitFor(t, "an empty wire", func() bool { return w.Stats().Down.InFlight == 0 })
		dropped0 := w.Stats().Down.Dropped["queue full"]
		longestPause, stop := floodAt(flood, 12e6)
		defer stop()
		// The queue fills at 2 Mbit/s net: 0.42 s; wait for drops to begin.
		waitFor(t, "a full queue", func() bool { return w.Stats().Down.Dropped["queue full"] > dropped0 })
		var waits []time.Duration
		paused := 0
		for probes := 0; probes < 12 && len(waits) < 5; probes++ {
			longestPause.Store(0)
			wait := pingOnce(t, ping) - idle
			if pause := time.Duration(longestPause.Load()); pause > stalled {
				t.Logf("round %d: probe %d: the flood paused %v (over %v): sent again", round, probes+1, pause, stalled)
				paused++
				continue
			}
			waits = append(waits, wait)
		}
		r.Band("probes under which the flood paused, of at most 12", float64(paused), 0, 7)
		if len(waits) < 5 {
			return
		}
		best := median(waits)
		full := time.Duration(float64(queue) * 8 / rate * float64(time.Second))
		s := w.Stats().Down
		t.Logf("idle round trip %v; small requests on a full queue wait %v more (median of %v); queue ÷ rate %v; longest queue wait %.1f ms; drops %v",
			idle, best, waits, full, s.Queued["max"], s.Dropped)
		r.Band("extra wait ÷ (queue ÷ rate)", float64(best)/float64(full), 0.98, 1.02)
	})
}

// floodAt sends 1472-byte datagrams (1500-byte packets) on c at rate bit/s
// until stop is called, and keeps the longest pause between two of its
// turns since the last reset of longestPause.
func floodAt(c net.Conn, rate float64) (longestPause *atomic.Int64, stop func()) {
	longestPause = new(atomic.Int64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		dgram := make([]byte, 1472)
		start, sent, last := time.Now(), 0, time.Now()
		for {
			select {
			case <-done:
				return
			default:
			}
			now := time.Now()
			if pause := int64(now.Sub(last)); pause > longestPause.Load() {
				longestPause.Store(pause)
			}
			last = now
			for due := int(now.Sub(start).Seconds() * rate / 8 / 1500); sent < due; sent++ {
				_, _ = c.Write(dgram)
			}
			time.Sleep(time.Millisecond)
		}
	})
	return longestPause, func() { close(done); wg.Wait() }
}

// snmpRetrans reads Tcp RetransSegs of the namespace (from a thread in
// it: /proc/thread-self/net is the thread's namespace).
func snmpRetrans(t testing.TB, ns *Namespace) int64 {
	t.Helper()
	var n int64 = -1
	err := ns.Do(func() error {
		f, err := os.Open("/proc/thread-self/net/snmp")
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		var head []string
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 0 || fields[0] != "Tcp:" {
				continue
			}
			if head == nil {
				head = fields
				continue
			}
			for i, h := range head {
				if h == "RetransSegs" && i < len(fields) {
					n, err = strconv.ParseInt(fields[i], 10, 64)
					return err
				}
			}
		}
		return fmt.Errorf("no Tcp RetransSegs in /proc/net/snmp")
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tunCounters reads the kernel's packet counters of a side's TUN device:
// tx is what its stack sent into the wire, rx what the wire delivered.
func tunCounters(t testing.TB, ns *Namespace) (tx, rx uint64) {
	t.Helper()
	h, err := netlink.NewHandleAt(ns.h)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	l, err := h.LinkByName(tunName)
	if err != nil {
		t.Fatal(err)
	}
	st := l.Attrs().Statistics
	return st.TxPackets, st.RxPackets
}

// TestLossRetransmitsAndCounts: 1 % loss each way makes TCP retransmit
// (the namespaces' own counters say so), lengthens the tail of
// request/response round trips against a loss-free wire in the same run,
// and the wire's drop counts match what it dropped: its callback, and the
// kernel's own counters of packets sent into and delivered out of the wire.
func TestLossRetransmitsAndCounts(t *testing.T) {
	const n = 400
	rtts := func(w *Wire) []time.Duration {
		c := dial(t, w, serve(t, w, echo))
		defer c.Close()
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = pingOnce(t, c)
		}
		slices.Sort(out)
		return out
	}
	clean := rtts(startWire(t, Config{Link: Link{Latency: ms(2)}}, Options{}))

	var mu sync.Mutex
	seen := map[string]int64{}
	w := startWire(t, Config{Link: Link{Latency: ms(2), Loss: 1}, Seed: 5}, Options{OnDrop: func(dir string, why Drop, size int, at time.Time) {
		mu.Lock()
		seen[dir+" "+why.String()]++
		mu.Unlock()
	}})
	r0 := snmpRetrans(t, w.Gen()) + snmpRetrans(t, w.Srv())
	lossy := rtts(w)
	retrans := snmpRetrans(t, w.Gen()) + snmpRetrans(t, w.Srv()) - r0
	p99 := func(d []time.Duration) time.Duration { return d[len(d)*99/100] }
	t.Logf("round trips over %d: loss-free p50 %v p99 %v max %v; 1%% loss p50 %v p99 %v max %v; %d TCP retransmissions",
		n, clean[n/2], p99(clean), clean[n-1], lossy[n/2], p99(lossy), lossy[n-1], retrans)
	if retrans == 0 {
		t.Error("no TCP retransmission at 1 % loss")
	}
	// A lost segment costs at least a retransmission timer (TLP: ≥ 2 round trips).
	if p99(lossy) < p99(clean)+4*time.Millisecond {
		t.Errorf("p99 %v with 1 %% loss, %v without: the tail did not grow", p99(lossy), p99(clean))
	}

	// Counts. Quiesce first: nothing in flight, then compare.
	waitFor(t, "an empty wire", func() bool { s := w.Stats(); return s.Up.InFlight == 0 && s.Down.InFlight == 0 })
	s := w.Stats()
	mu.Lock()
	defer mu.Unlock()
	genTx, genRx := tunCounters(t, w.Gen())
	srvTx, srvRx := tunCounters(t, w.Srv())
	for _, d := range []struct {
		name     string
		st       DirStats
		sent, rx uint64
	}{{"up", s.Up, genTx, srvRx}, {"down", s.Down, srvTx, genRx}} {
		t.Logf("%s: %d packets, %d dropped %v; kernel: %d sent in, %d delivered", d.name, d.st.Packets, d.st.DroppedTotal(), d.st.Dropped, d.sent, d.rx)
		if d.st.Dropped["loss"] != seen[d.name+" loss"] || d.st.DroppedTotal() != d.st.Dropped["loss"] {
			t.Errorf("%s: counted %v, the drop callback saw %d losses", d.name, d.st.Dropped, seen[d.name+" loss"])
		}
		if uint64(d.st.Packets) != d.sent || uint64(d.st.Passed) != d.rx || d.st.Packets != d.st.Passed+d.st.DroppedTotal() {
			t.Errorf("%s: wire %d in = %d passed + %d dropped; kernel %d sent in, %d delivered", d.name, d.st.Packets, d.st.Passed, d.st.DroppedTotal(), d.sent, d.rx)
		}
	}
	if s.Up.Dropped["loss"]+s.Down.Dropped["loss"] == 0 {
		t.Error("1 % loss dropped nothing")
	}
}
