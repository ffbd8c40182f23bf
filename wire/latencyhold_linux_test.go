package wire

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"
)

// cpuLatencyLimit is the machine's CPU wake-up latency limit now, in µs:
// the least of every process's request.
func cpuLatencyLimit(t *testing.T) uint32 {
	t.Helper()
	raw, err := os.ReadFile(cpuLatencyDevice)
	if err != nil || len(raw) != 4 {
		t.Skipf("cannot read %s (%v): the kernel's limit is not visible here", cpuLatencyDevice, err)
	}
	return binary.NativeEndian.Uint32(raw)
}

// A crossing makes the line hold the CPUs' wake-up latency at 0, and the
// line lets go holdFor after its last packet: an idle wire holds nothing.
// (Another process may hold the limit at 0 too, so only the wire's own
// Stats can show the release.)
func TestWireHoldsWakeLatencyWhileFlowing(t *testing.T) {
	cpuLatencyLimit(t)
	w := startWire(t, Config{}, Options{})
	if s := w.Stats().Hold; s.Held || s.Unavailable != "" {
		t.Fatalf("before any packet: %+v, want nothing held and nothing unavailable", s)
	}
	p := newOneWayPair(t, w)
	send(t, p.wireFrom, p.wireTo)
	deadline := time.Now().Add(5 * time.Second)
	for s := w.Stats().Hold; !s.Held; s = w.Stats().Hold {
		if s.Unavailable != "" || time.Now().After(deadline) {
			t.Fatalf("a packet crossed and the line holds no request within 5 s: %+v", s)
		}
		time.Sleep(time.Millisecond)
	}
	if limit := cpuLatencyLimit(t); limit != 0 {
		t.Fatalf("the line holds its request and the machine's limit is %d µs, want 0", limit)
	}
	held := time.Now()
	deadline = held.Add(holdFor + 5*time.Second)
	for w.Stats().Hold.Held {
		if time.Now().After(deadline) {
			t.Fatalf("still held %v after the last packet, want released after %v", time.Since(held), holdFor)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s := w.Stats().Hold; s.Holds != 1 || s.HeldMs < float64(holdFor.Milliseconds()) {
		t.Fatalf("released: %+v, want one hold of at least %v", s, holdFor)
	}
}

// Options.NoLatencyHold lets the CPUs halt, and Stats says so.
func TestWireWithoutHold(t *testing.T) {
	w := startWire(t, Config{}, Options{NoLatencyHold: true})
	p := newOneWayPair(t, w)
	send(t, p.wireFrom, p.wireTo)
	if s := w.Stats().Hold; s.Held || s.Holds != 0 || s.Unavailable == "" {
		t.Fatalf("%+v, want nothing held and the reason said", s)
	}
}

// TestConfigSwitchesReachTheLine: noLatencyHold in the wire's config
// switches the hold off in the line, which Stats.Hold and the summary say.
func TestConfigSwitchesReachTheLine(t *testing.T) {
	w := startWire(t, Config{NoLatencyHold: true}, Options{})
	if got := w.Stats().Hold.Unavailable; got != "switched off (noLatencyHold)" {
		t.Errorf("Stats.Hold.Unavailable = %q, want %q", got, "switched off (noLatencyHold)")
	}
	if s := w.Summary(); !strings.Contains(s, "idle CPUs not held polling: switched off (noLatencyHold)") {
		t.Errorf("summary %q does not say the hold is off", s)
	}
	if s := w.Summary(); !strings.Contains(s, "no busy poll: off (busyPoll: true turns it on)") {
		t.Errorf("summary %q does not say the busy poll is off by default", s)
	}
}
