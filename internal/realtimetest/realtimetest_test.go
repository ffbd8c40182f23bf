package realtimetest

import (
	"math"
	"testing"
	"time"
)

// recorder counts failures instead of failing the real test.
type recorder struct {
	testing.TB
	failed int
}

func (r *recorder) Helper()               {}
func (r *recorder) Logf(string, ...any)   {}
func (r *recorder) Errorf(string, ...any) { r.failed++ }

func TestBandsFailBelowAlways(t *testing.T) {
	tests := []struct {
		name  string
		check func(tb testing.TB)
		fail  bool
	}{
		{"within", func(tb testing.TB) { Within(tb, "d", 50*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, false},
		{"within below", func(tb testing.TB) { Within(tb, "d", 48*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, true},
		{"band", func(tb testing.TB) { Band(tb, "ms", 101, 100, 103) }, false},
		{"band below", func(tb testing.TB) { Band(tb, "ms", 99.9, 100, 103) }, true},
		{"band NaN", func(tb testing.TB) { Band(tb, "ms", math.NaN(), 100, 103) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			tt.check(r)
			if got := r.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
		})
	}
}

// TestFarOverFails: an overshoot beyond the race slack fails unless the
// machine is overloaded right now.
func TestFarOverFails(t *testing.T) {
	if why := Overloaded(); why != "" {
		t.Skip(why)
	}
	r := &recorder{TB: t}
	Band(r, "ms", 120, 100, 103)
	Within(r, "d", 60*time.Millisecond, 50*time.Millisecond, time.Millisecond)
	if r.failed != 2 {
		t.Errorf("%d failures, want 2", r.failed)
	}
}
