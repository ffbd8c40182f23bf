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

func TestSingleMeasurements(t *testing.T) {
	tests := []struct {
		name  string
		check func(tb testing.TB)
		fail  bool
	}{
		{"within", func(tb testing.TB) { Within(tb, "d", 50*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, false},
		{"within below", func(tb testing.TB) { Within(tb, "d", 48*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, true},
		{"within above", func(tb testing.TB) { Within(tb, "d", 52*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, true},
		{"within far above", func(tb testing.TB) { Within(tb, "d", 60*time.Millisecond, 50*time.Millisecond, time.Millisecond) }, true},
		{"band", func(tb testing.TB) { Band(tb, "ms", 101, 100, 103) }, false},
		{"band edges", func(tb testing.TB) { Band(tb, "ms", 100, 100, 103); Band(tb, "ms", 103, 100, 103) }, false},
		{"band below", func(tb testing.TB) { Band(tb, "ms", 99.9, 100, 103) }, true},
		{"band above", func(tb testing.TB) { Band(tb, "ms", 103.1, 100, 103) }, true},
		{"band far above", func(tb testing.TB) { Band(tb, "ms", 120, 100, 103) }, true},
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

// TestRounds: the values each round measures are scripted, so the expected
// verdicts and round counts follow from the script alone.
func TestRounds(t *testing.T) {
	tests := []struct {
		name   string
		values [][]float64 // per round: the values of checks a and b (band 100..103)
		rounds int         // allowed
		fail   bool
		ran    int // rounds measured
	}{
		{"first round in band", [][]float64{{101, 102}}, 3, false, 1},
		{"second round in band", [][]float64{{110, 101}, {101, 102}}, 3, false, 2},
		{"every round over", [][]float64{{110, 101}, {101, 104}, {120, 120}}, 3, true, 3},
		{"below fails at once", [][]float64{{99, 101}, {101, 101}}, 3, true, 1},
		{"below after an over round", [][]float64{{110, 101}, {101, 90}}, 3, true, 2},
		{"NaN fails at once", [][]float64{{math.NaN(), 101}}, 3, true, 1},
		{"one round allowed", [][]float64{{104, 101}, {101, 101}}, 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			ran := 0
			Rounds(rec, tt.rounds, func(r *Round) {
				v := tt.values[ran]
				ran++
				r.Band("a", v[0], 100, 103)
				r.Within("b", time.Duration(v[1]*float64(time.Millisecond)), 101500*time.Microsecond, 1500*time.Microsecond)
			})
			if got := rec.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
			if ran != tt.ran {
				t.Errorf("measured %d rounds, want %d", ran, tt.ran)
			}
		})
	}
}
