package load

import (
	"math"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

func stage(d time.Duration, target float64) Stage {
	return Stage{Duration: units.Duration(d), Target: target}
}

func TestVUSchedule(t *testing.T) {
	tests := []struct {
		name   string
		start  int
		stages []Stage
		want   []vuChange
	}{
		{"ramp up", 0, []Stage{stage(10*time.Second, 5)},
			[]vuChange{{0, 0}, {2 * time.Second, 1}, {4 * time.Second, 2}, {6 * time.Second, 3}, {8 * time.Second, 4}, {10 * time.Second, 5}}},
		{"ramp down ends at the stage's end", 4, []Stage{stage(4*time.Second, 0)},
			[]vuChange{{0, 4}, {time.Second, 3}, {2 * time.Second, 2}, {3 * time.Second, 1}, {4 * time.Second, 0}}},
		{"hold then jump", 2, []Stage{stage(5*time.Second, 2), stage(0, 6), stage(time.Second, 6)},
			[]vuChange{{0, 2}, {5 * time.Second, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := vuSchedule(tt.start, tt.stages)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("change %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// count returns how many arrivals a pacer starts, and the last one's time.
func count(p pacer) (int64, time.Duration) {
	var last time.Duration
	var i int64
	for ; i < 10_000_000; i++ {
		at, ok := p.at(i)
		if !ok {
			break
		}
		last = at
	}
	return i, last
}

func TestConstantPacer(t *testing.T) {
	p := constantPacer{n: 200, per: time.Second, duration: 6 * time.Second}
	n, last := count(p)
	if n != 1200 || last != 5995*time.Millisecond {
		t.Errorf("200/s for 6s: %d arrivals, last at %v; want 1200, last at 5.995s", n, last)
	}
	if at, _ := p.at(0); at != 0 {
		t.Errorf("first arrival at %v, want 0 (k6 starts one at once)", at)
	}
	p3 := constantPacer{n: 1, per: 3 * time.Second / 10, duration: time.Second} // 1/300ms
	if n, _ := count(p3); n != 4 {
		t.Errorf("1/300ms for 1s: %d arrivals, want 4 (0, 300, 600, 900 ms)", n)
	}
}

func TestRampingPacer(t *testing.T) {
	// A flat stage is the constant rate, shifted by one period (k6's ramping
	// executor counts areas from 1).
	flat := newRampingPacer(200, time.Second, []Stage{stage(6*time.Second, 200)})
	n, last := count(flat)
	if n != 1200 || math.Abs(float64(last-6*time.Second)) > float64(time.Microsecond) {
		t.Errorf("flat 200/s for 6s: %d arrivals, last %v", n, last)
	}
	// 0 → 100/s over 10s: area 500; the k-th arrival at sqrt(2k·10/100) s.
	ramp := newRampingPacer(0, time.Second, []Stage{stage(10*time.Second, 100)})
	n, _ = count(ramp)
	if n != 500 {
		t.Errorf("ramp 0→100/s over 10s: %d arrivals, want 500", n)
	}
	for _, k := range []int64{1, 50, 200, 500} {
		at, _ := ramp.at(k - 1)
		want := math.Sqrt(2*float64(k)*10/100) * float64(time.Second)
		if math.Abs(float64(at)-want) > float64(time.Microsecond) {
			t.Errorf("arrival %d at %v, want %v", k, at, time.Duration(want))
		}
	}
	// Steps: 10/s for 1s, jump to 50/s for 1s: 60 arrivals, none before 0.
	steps := newRampingPacer(10, time.Second, []Stage{stage(time.Second, 10), stage(0, 50), stage(time.Second, 50)})
	n, last = count(steps)
	if n != 60 || last > 2*time.Second {
		t.Errorf("stepped: %d arrivals, last %v", n, last)
	}
	var prev time.Duration
	for i := range n {
		at, _ := steps.at(i)
		if at < prev {
			t.Fatalf("arrival %d at %v before arrival %d at %v", i, at, i-1, prev)
		}
		prev = at
	}
}
