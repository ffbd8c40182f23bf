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

func noWait() (time.Duration, bool) { return 0, true }

// quietHost is a machine that is quiet at once and from which nothing is
// taken.
var quietHost = host{await: noWait, stolen: func() time.Duration { return 0 }, cpus: 2}

// TestRoundsStolen: a round over its band while the hypervisor took the
// CPUs is measured again, up to as many rounds more; a round in band, or
// one over without steal, is judged as always.
func TestRoundsStolen(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values []float64 // per round, band 100..103
		stolen []bool    // per round: the hypervisor took every CPU the whole round
		rounds int
		fail   bool
		ran    int
	}{
		{"over without steal: judged", []float64{110, 101}, []bool{false, false}, 1, true, 1},
		{"over with steal: again", []float64{110, 101}, []bool{true, false}, 1, false, 2},
		{"in band with steal: done", []float64{101}, []bool{true}, 1, false, 1},
		{"over with steal every round: at most twice the rounds", []float64{110, 110, 110, 110, 101}, []bool{true, true, true, true, true}, 2, true, 4},
		{"below with steal: fails at once", []float64{90, 101}, []bool{true, false}, 2, true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			ran := 0
			var taken time.Duration
			h := quietHost
			h.stolen = func() time.Duration { return taken }
			rounds(rec, tt.rounds, func(r *Round) {
				t0 := time.Now()
				r.Band("a", tt.values[ran], 100, 103)
				if tt.stolen[ran] {
					time.Sleep(time.Millisecond)
					taken += time.Duration(h.cpus) * time.Since(t0) * 2 // more than the round lasted, on every CPU
				}
				ran++
			}, h)
			if got := rec.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
			if ran != tt.ran {
				t.Errorf("measured %d rounds, want %d", ran, tt.ran)
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
		{"each check in band in some round", [][]float64{{110, 101}, {101, 104}}, 3, false, 2},
		{"one check over in every round", [][]float64{{110, 101}, {104, 101}, {120, 101}}, 3, true, 3},
		{"both over in every round", [][]float64{{110, 104}, {104, 110}, {120, 120}}, 3, true, 3},
		{"below fails at once", [][]float64{{99, 101}, {101, 101}}, 3, true, 1},
		{"below after an over round", [][]float64{{110, 101}, {101, 90}}, 3, true, 2},
		{"NaN fails at once", [][]float64{{math.NaN(), 101}}, 3, true, 1},
		{"one round allowed", [][]float64{{104, 101}, {101, 101}}, 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			ran := 0
			rounds(rec, tt.rounds, func(r *Round) {
				v := tt.values[ran]
				ran++
				r.Band("a", v[0], 100, 103)
				r.Within("b", time.Duration(v[1]*float64(time.Millisecond)), 101500*time.Microsecond, 1500*time.Microsecond)
			}, quietHost)
			if got := rec.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
			if ran != tt.ran {
				t.Errorf("measured %d rounds, want %d", ran, tt.ran)
			}
		})
	}
}

// TestRoundsRepeatedCheck: a check made several times in a round is clean
// in that round only when every value is within the band.
func TestRoundsRepeatedCheck(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values [][]float64
		fail   bool
	}{
		{"clean in round 2", [][]float64{{101, 110, 101}, {101, 101, 102}, {101, 101, 101}}, false},
		{"one value over in every round", [][]float64{{101, 110, 101}, {104, 101, 101}, {101, 101, 120}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			i := 0
			rounds(rec, 3, func(r *Round) {
				for _, v := range tt.values[i] {
					r.Band("applied", v, 100, 103)
				}
				i++
			}, quietHost)
			if got := rec.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
		})
	}
}

// TestAwaitQuietIsBounded: however busy the machine, the wait ends by its
// limit (and a quiet machine does not wait at all).
func TestAwaitQuietIsBounded(t *testing.T) {
	start := time.Now()
	waited, quiet := awaitQuiet(200 * time.Millisecond)
	t.Logf("waited %v, quiet %v", waited, quiet)
	if took := time.Since(start); took > 200*time.Millisecond+2*time.Second { // bounded, not punctual: the probes themselves may stall
		t.Errorf("awaitQuiet(200ms) took %v", took)
	}
	if !quiet && waited < 200*time.Millisecond {
		t.Errorf("gave up after %v, before its limit", waited)
	}
}
