package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/middlebench/middlebench/wire"
)

// A path's wire sits in front of its first box: the first box listens in
// the wire's server namespace (its listener is made there; the connections
// it accepts stay there), every other box and the box's next hops are
// dialed from this process's own namespace as before, and the load dials
// from the wire's generator namespace (Path.Wire().Gen()). So TCP's own
// handshake, loss and queueing happen on packets, in front of the boxes.

// startWire starts the configured wire, if any, and returns how the first
// box listens: in the server namespace, on the wire's server address.
func (p *Path) startWire(ctx context.Context) (func(func() error) error, string, error) {
	if p.cfg.Wire == nil {
		return nil, "", nil
	}
	p.wireLedger = newLedger(p.cfg.LedgerLimit, p.sink)
	w, err := wire.Start(ctx, *p.cfg.Wire, wire.Options{Log: p.log, OnDrop: p.wireDropped})
	if err != nil {
		if errors.Is(err, wire.ErrUnavailable) {
			return nil, "", fmt.Errorf("proxy: %w (the link stage is the userspace fallback)", err)
		}
		return nil, "", fmt.Errorf("proxy: %w", err)
	}
	p.wire = w
	return w.Srv().Do, net.JoinHostPort(w.Srv().IP().String(), "0"), nil
}

// wireDropped writes a ledger entry for each packet the wire drops.
func (p *Path) wireDropped(dir string, why wire.Drop, size int, at time.Time) {
	p.wireLedger.add(LedgerEntry{Time: at, Box: "wire", Stage: "wire", Action: ActRejected, Bytes: int64(size), Note: dir + ": " + why.String()})
}

// printWire says, for `middlebench proxy`, where the wire is and how to
// load through it: from the generator namespace.
func printWire(out io.Writer, p *Path) {
	if p.wire == nil {
		return
	}
	fmt.Fprintf(out, "wire %s ⇄ %s: %s\n", p.wire.Gen().Name(), p.wire.Srv().Name(), p.wire.Config())
	fmt.Fprintf(out, "load from the generator namespace: %s\n", p.wire.ExecCommand("k6", "run", "-e", "TARGET="+p.URL(), "script.js"))
}

// Wire is the path's wire, or nil.
func (p *Path) Wire() *wire.Wire { return p.wire }

func (p *Path) closeWire() error {
	if p.wire == nil {
		return nil
	}
	fmt.Fprintln(p.log, p.wire.Summary())
	return p.wire.Close()
}

func (p *Path) wireStats() *wire.Stats {
	if p.wire == nil {
		return nil
	}
	s := p.wire.Stats()
	return &s
}

var (
	wireLabels = []string{"dir"}
	wireDescs  = struct {
		packets, bytes, passed, dropped, queuedPackets, inFlight, delay, queued, late *prometheus.Desc
	}{
		packets:       prometheus.NewDesc("middlebench_wire_packets_total", "IP packets that reached the wire.", wireLabels, nil),
		bytes:         prometheus.NewDesc("middlebench_wire_bytes_total", "Bytes of the packets that reached the wire.", wireLabels, nil),
		passed:        prometheus.NewDesc("middlebench_wire_passed_total", "Packets the wire delivered.", wireLabels, nil),
		dropped:       prometheus.NewDesc("middlebench_wire_dropped_total", "Packets the wire dropped, by reason.", append(wireLabels, "reason"), nil),
		queuedPackets: prometheus.NewDesc("middlebench_wire_queued_packets_total", "Packets that waited behind others for the rate.", wireLabels, nil),
		inFlight:      prometheus.NewDesc("middlebench_wire_in_flight", "Packets in the wire now.", wireLabels, nil),
		delay:         prometheus.NewDesc("middlebench_wire_delay_seconds", "Time the wire added per packet.", wireLabels, nil),
		queued:        prometheus.NewDesc("middlebench_wire_queued_seconds", "Time packets waited for the rate.", wireLabels, nil),
		late:          prometheus.NewDesc("middlebench_wire_late_seconds", "How late the wire released packets after their due time: its own error.", wireLabels, nil),
	}
)

// wireCollector renders the wire's counters at scrape time.
type wireCollector struct{ p *Path }

func (c wireCollector) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(c, ch) }

func (c wireCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.p.wireStats()
	if s == nil {
		return
	}
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, d := range []struct {
		dir string
		st  wire.DirStats
	}{{"up", s.Up}, {"down", s.Down}} {
		counter(wireDescs.packets, d.st.Packets, d.dir)
		counter(wireDescs.bytes, d.st.Bytes, d.dir)
		counter(wireDescs.passed, d.st.Passed, d.dir)
		counter(wireDescs.queuedPackets, d.st.QueuedPackets, d.dir)
		for _, k := range slices.Sorted(maps.Keys(d.st.Dropped)) {
			counter(wireDescs.dropped, d.st.Dropped[k], d.dir, k)
		}
		ch <- prometheus.MustNewConstMetric(wireDescs.inFlight, prometheus.GaugeValue, float64(d.st.InFlight), d.dir)
		summary(ch, wireDescs.delay, d.st.Delay, []string{d.dir})
		summary(ch, wireDescs.queued, d.st.Queued, []string{d.dir})
		summary(ch, wireDescs.late, d.st.Late, []string{d.dir})
	}
}
