package wire

import (
	"math"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func ms(n float64) units.Duration { return units.Duration(n * float64(time.Millisecond)) }

func mbit(n float64) units.ByteRate { return units.ByteRate(n * 1e6 / 8) }

// TestAdmitSchedule: each row is a packet arriving at a time; the due time
// and drops follow from the configured latency, rate and queue alone.
func TestAdmitSchedule(t *testing.T) {
	t0 := time.Unix(1000, 0)
	milli := time.Millisecond
	type pkt struct {
		at     time.Duration
		size   int
		due    time.Duration // from t0
		queued time.Duration
		drop   Drop
	}
	tests := []struct {
		name string
		link Link
		pkts []pkt
	}{
		{"latency only: every packet at arrival + latency, a burst together", Link{Latency: ms(20)}, []pkt{
			{0, 1500, 20 * milli, 0, Pass},
			{0, 1500, 20 * milli, 0, Pass},
			{5 * milli, 60, 25 * milli, 0, Pass},
		}},
		// 1 Mbit/s: 1250 bytes take 10 ms on the wire.
		{"rate serializes a burst", Link{Latency: ms(20), Rate: mbit(1)}, []pkt{
			{0, 1250, 30 * milli, 0, Pass},
			{0, 1250, 40 * milli, 10 * milli, Pass},
			{0, 125, 41 * milli, 20 * milli, Pass},
			{100 * milli, 1250, 130 * milli, 0, Pass}, // the line is idle again
		}},
		{"queue in packets: drop-tail, then room once one is sent", Link{Rate: mbit(1), Queue: Queue{Packets: 2}}, []pkt{
			{0, 1250, 10 * milli, 0, Pass},
			{0, 1250, 20 * milli, 10 * milli, Pass},
			{0, 1250, 0, 0, QueueFul},
			{10 * milli, 1250, 30 * milli, 10 * milli, Pass}, // the first left at +10ms
			{10 * milli, 1250, 0, 0, QueueFul},
		}},
		{"queue in bytes counts the packet being sent", Link{Rate: mbit(1), Queue: Queue{Bytes: 2500}}, []pkt{
			{0, 1250, 10 * milli, 0, Pass},
			{0, 1250, 20 * milli, 10 * milli, Pass},
			{5 * milli, 1, 0, 0, QueueFul},
			{20 * milli, 1250, 30 * milli, 0, Pass},
		}},
		{"an empty queue takes a packet larger than its limit", Link{Rate: mbit(1), Queue: Queue{Bytes: 100}}, []pkt{
			{0, 1250, 10 * milli, 0, Pass},
			{0, 50, 0, 0, QueueFul},
		}},
		{"everything lost", Link{Latency: ms(1), Loss: 100}, []pkt{
			{0, 1500, 0, 0, Lost},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewShaper(tt.link, 1)
			for i, p := range tt.pkts {
				v := s.Admit(t0.Add(p.at), p.size)
				if v.Drop != p.drop {
					t.Fatalf("packet %d: drop %v, want %v", i, v.Drop, p.drop)
				}
				if p.drop != Pass {
					continue
				}
				if got := v.Due.Sub(t0); got != p.due {
					t.Errorf("packet %d: due +%v, want +%v", i, got, p.due)
				}
				if v.Queued != p.queued {
					t.Errorf("packet %d: queued %v, want %v", i, v.Queued, p.queued)
				}
				if v.Delay != p.due-p.at {
					t.Errorf("packet %d: delay %v, want %v", i, v.Delay, p.due-p.at)
				}
			}
		})
	}
}

// TestJitterKeepsOrder: with jitter, delays stay within latency ± jitter,
// and a packet that would overtake the one ahead leaves with it instead
// (release times never decrease); the same seed draws the same delays.
// Packets 10 ms apart (more than the ±4 ms spread) are never held, so
// their delays span the whole range; 0.1 ms apart most are held.
func TestJitterKeepsOrder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	link := Link{Latency: ms(10), Jitter: ms(4)}
	run := func(seed uint64, gap time.Duration) []time.Time {
		s := NewShaper(link, seed)
		var dues []time.Time
		for i := range 2000 {
			dues = append(dues, s.Admit(t0.Add(time.Duration(i)*gap), 100).Due)
		}
		return dues
	}
	for _, gap := range []time.Duration{10 * time.Millisecond, 100 * time.Microsecond} {
		a, b, c := run(7, gap), run(7, gap), run(8, gap)
		var held, differs int
		lo, hi := time.Hour, time.Duration(0)
		for i, due := range a {
			d := due.Sub(t0.Add(time.Duration(i) * gap))
			lo, hi = min(lo, d), max(hi, d)
			if i > 0 && due.Before(a[i-1]) {
				t.Fatalf("gap %v: packet %d leaves before packet %d: reordered", gap, i, i-1)
			}
			if i > 0 && due.Equal(a[i-1]) {
				held++
			}
			if d < 6*time.Millisecond || d > 14*time.Millisecond {
				t.Fatalf("gap %v: packet %d delayed %v, outside 10ms ± 4ms", gap, i, d)
			}
			if !due.Equal(b[i]) {
				t.Fatalf("gap %v: packet %d: same seed, due %v then %v", gap, i, due, b[i])
			}
			if !due.Equal(c[i]) {
				differs++
			}
		}
		t.Logf("gap %v: delays %v..%v, %d of %d held behind the packet ahead, %d differ with another seed", gap, lo, hi, held, len(a), differs)
		if differs == 0 {
			t.Errorf("gap %v: another seed drew the same delays", gap)
		}
		if gap == 10*time.Millisecond && (held > 0 || hi-lo < 7*time.Millisecond) {
			t.Errorf("gap %v: %d held, delays span %v..%v: want none held and the whole ±4ms drawn", gap, held, lo, hi)
		}
		if gap == 100*time.Microsecond && held < len(a)/2 {
			t.Errorf("gap %v: only %d held: dense packets under jitter must queue behind each other", gap, held)
		}
	}
}

// TestLossRate: 1 % loss over 100,000 packets drops 1,000 ± 4σ (σ ≈ 31.5),
// and a seed repeats its draws.
func TestLossRate(t *testing.T) {
	count := func(seed uint64) (lost int) {
		s := NewShaper(Link{Loss: 1}, seed)
		t0 := time.Unix(1000, 0)
		for i := range 100_000 {
			if s.Admit(t0.Add(time.Duration(i)), 100).Drop == Lost {
				lost++
			}
		}
		return lost
	}
	n := count(3)
	sigma := math.Sqrt(100_000 * 0.01 * 0.99)
	if math.Abs(float64(n)-1000) > 4*sigma {
		t.Errorf("lost %d of 100000 at 1%%, want 1000 ± %.0f", n, 4*sigma)
	}
	if again := count(3); again != n {
		t.Errorf("seed 3 lost %d, then %d", n, again)
	}
}

// TestAdmitBufferbloat: a full 1 MiB queue at 10 Mbit/s holds a newcomer for
// queue ÷ rate (0.839 s), the figure the real-link test expects.
func TestAdmitBufferbloat(t *testing.T) {
	s := NewShaper(Link{Rate: mbit(10), Queue: Queue{Bytes: 1 << 20}}, 1)
	t0 := time.Unix(1000, 0)
	var last Verdict
	accepted := 0
	for {
		v := s.Admit(t0, 1500)
		if v.Drop == QueueFul {
			break
		}
		last, accepted = v, accepted+1
	}
	if want := (1 << 20) / 1500; accepted != want {
		t.Errorf("a 1 MiB queue took %d packets of 1500 bytes, want %d", accepted, want)
	}
	// The last accepted waits for every packet ahead of it: 698 × 1.2 ms.
	if want := time.Duration(accepted-1) * 1200 * time.Microsecond; last.Queued != want {
		t.Errorf("last packet queued %v, want %v", last.Queued, want)
	}
	pk, by := s.Backlog(t0.Add(600 * time.Millisecond)) // 500 sent by then
	if pk != accepted-500 || by != int64(accepted-500)*1500 {
		t.Errorf("backlog at +600ms: %d packets, %d bytes; want %d, %d", pk, by, accepted-500, (accepted-500)*1500)
	}
}

func TestParseQueueAndPercent(t *testing.T) {
	for in, want := range map[string]Queue{"256KiB": {Bytes: 256 << 10}, "100 packets": {Packets: 100}, "5p": {Packets: 5}, "1500": {Bytes: 1500}} {
		got, err := ParseQueue(in)
		if err != nil || got != want {
			t.Errorf("ParseQueue(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1p", "lots", "1.5 packets"} {
		if _, err := ParseQueue(bad); err == nil {
			t.Errorf("ParseQueue(%q): want an error", bad)
		}
	}
	if p, err := ParsePercent("0.1%"); err != nil || p.Fraction() != 0.001 {
		t.Errorf("ParsePercent(0.1%%) = %v, %v", p, err)
	}
	for _, bad := range []string{"0.1", "101%", "-1%", "x%"} {
		if _, err := ParsePercent(bad); err == nil {
			t.Errorf("ParsePercent(%q): want an error", bad)
		}
	}
}
