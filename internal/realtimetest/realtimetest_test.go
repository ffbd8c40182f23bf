package realtimetest

import (
	"math"
	"slices"
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

func noWait() wait { return wait{quiet: true} }

// verdict checks a scripted run of rounds: whether it failed the test, and
// how many rounds it measured.
func verdict(t *testing.T, rec *recorder, ran int, fail bool, wantRan int) {
	t.Helper()
	if got := rec.failed > 0; got != fail {
		t.Errorf("failed = %v, want %v", got, fail)
	}
	if ran != wantRan {
		t.Errorf("measured %d rounds, want %d", ran, wantRan)
	}
}

// quietHost is a machine that is quiet at once and from which nothing is
// taken.
func quietHost() host {
	return host{await: noWait, stolen: func() time.Duration { return 0 }, cpus: 2, verdict: &stealVerdict{}, spent: &price{}}
}

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
			h := quietHost()
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
			verdict(t, rec, ran, tt.fail, tt.ran)
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
			}, quietHost())
			verdict(t, rec, ran, tt.fail, tt.ran)
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
			}, quietHost())
			if got := rec.failed > 0; got != tt.fail {
				t.Errorf("failed = %v, want %v", got, tt.fail)
			}
		})
	}
}

// TestRoundsDifference: a difference below its band is a disturbed
// round, not a failure at once, and fails when no round was in the band
// (band 40 ms ± 1 ms).
func TestRoundsDifference(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values []time.Duration // per round
		fail   bool
		ran    int
	}{
		{"in band", []time.Duration{40500 * time.Microsecond}, false, 1},
		{"below, then in band", []time.Duration{32 * time.Millisecond, 40 * time.Millisecond}, false, 2},
		{"above, then in band", []time.Duration{48 * time.Millisecond, 40 * time.Millisecond}, false, 2},
		{"below in every round", []time.Duration{38 * time.Millisecond, 38900 * time.Microsecond, 30 * time.Millisecond}, true, 3},
		{"below and above, never in band", []time.Duration{38 * time.Millisecond, 42 * time.Millisecond, 41100 * time.Microsecond}, true, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			ran := 0
			rounds(rec, 3, func(r *Round) {
				r.Difference("far − near", tt.values[ran], 40*time.Millisecond, time.Millisecond)
				ran++
			}, quietHost())
			verdict(t, rec, ran, tt.fail, tt.ran)
		})
	}
}

// takes is a host from which the hypervisor takes share of every CPU's
// time, as a clock would count it.
func takes(share float64) host {
	start := time.Now()
	h := host{await: noWait, onTime: func() bool { return true }, cpus: 2, verdict: &stealVerdict{}, spent: &price{}, stolen: func() time.Duration {
		return time.Duration(share * 2 * float64(time.Since(start)))
	}}
	h.probe = h.stolenUnderLoad
	return h
}

// reads is a host whose steal probe reads share at once (no CPU spun).
func reads(share float64) host {
	h := takes(share)
	h.probe = func() float64 { return share }
	return h
}

// TestStolenUnderLoad: the share read while the CPUs spin is the share the
// host takes.
func TestStolenUnderLoad(t *testing.T) {
	for _, share := range []float64{0, 0.05, 0.5} {
		if got := takes(share).stolenUnderLoad(); math.Abs(got-share) > 0.01 {
			t.Errorf("host taking %.2f: read %.3f", share, got)
		}
	}
}

// TestAwaitQuietWaitsOutSteal: while the hypervisor takes half the CPUs,
// no moment is quiet: the wait ends at its limit, not quiet.
func TestAwaitQuietWaitsOutSteal(t *testing.T) {
	start := time.Now()
	w := takes(0.5).awaitQuiet(time.Second)
	if w.quiet || w.took < time.Second {
		t.Errorf("with half the CPUs taken: quiet %v after %v, want not quiet after 1s", w.quiet, w.took)
	}
	if took := time.Since(start); took > 3*time.Second { // bounded, not punctual: the probes themselves may stall
		t.Errorf("awaitQuiet(1s) took %v", took)
	}
}

// TestAwaitQuietIsBounded: however busy the machine, the wait ends by its
// limit (and a quiet machine does not wait at all).
func TestAwaitQuietIsBounded(t *testing.T) {
	start := time.Now()
	w := thisHost().awaitQuiet(200 * time.Millisecond)
	t.Logf("waited %v, quiet %v", w.took, w.quiet)
	if took := time.Since(start); took > 200*time.Millisecond+2*time.Second { // bounded, not punctual: the probes themselves may stall
		t.Errorf("awaitQuiet(200ms) took %v", took)
	}
	if !w.quiet && w.took < 200*time.Millisecond {
		t.Errorf("gave up after %v, before its limit", w.took)
	}
}

// TestStealProbeSkippedWhileRoundsStayClean: the first round a host
// measures probes the hypervisor; later rounds skip the probe until one
// has a value over its band, and the round after that probes again. The
// binary's price counts every round and probe.
func TestStealProbeSkippedWhileRoundsStayClean(t *testing.T) {
	h := reads(0)
	var probed []bool
	h.await = func() wait {
		w := h.awaitQuiet(time.Second)
		probed = append(probed, w.probed)
		return w
	}
	for _, tt := range []struct {
		values []float64 // per round, band 100..103
		probed []bool
	}{
		{[]float64{101}, []bool{true}},
		{[]float64{110, 101}, []bool{false, true}},
		{[]float64{101}, []bool{false}},
		{[]float64{101, 101}, []bool{false}},
	} {
		rec := &recorder{TB: t}
		probed = nil
		i := 0
		rounds(rec, 3, func(r *Round) {
			r.Band("a", tt.values[i], 100, 103)
			i++
		}, h)
		if rec.failed > 0 || !slices.Equal(probed, tt.probed) {
			t.Errorf("values %v: failed %d times, probed %v, want no failure and probes %v", tt.values, rec.failed, probed, tt.probed)
		}
	}
	if h.spent.rounds != 5 || h.spent.probes != 2 {
		t.Errorf("price: %d rounds, %d probes; want 5 rounds, 2 probes", h.spent.rounds, h.spent.probes)
	}
}

// TestStealProbeNotTrustedWhileTaken: a host found taken at the probe is
// not remembered as quiet: every look probes again until the limit.
func TestStealProbeNotTrustedWhileTaken(t *testing.T) {
	h := reads(0.5)
	for range 2 {
		if w := h.awaitQuiet(0); w.quiet || !w.probed {
			t.Errorf("half the CPUs taken: quiet %v, probed %v; want not quiet, probed", w.quiet, w.probed)
		}
	}
}

// TestStealVerdictIsBelievedFor30s: a quiet probe is believed for
// stealTrusted and no longer, and not at all after a disturbed round.
func TestStealVerdictIsBelievedFor30s(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var v stealVerdict
	if v.trusted(t0) {
		t.Error("believed before any probe")
	}
	v.quiet(t0)
	for _, c := range []struct {
		after time.Duration
		want  bool
	}{{0, true}, {stealTrusted - time.Nanosecond, true}, {stealTrusted, false}, {time.Hour, false}} {
		if got := v.trusted(t0.Add(c.after)); got != c.want {
			t.Errorf("%v after a quiet probe: believed %v, want %v", c.after, got, c.want)
		}
	}
	v.disturbed()
	if v.trusted(t0) {
		t.Error("believed after a disturbed round")
	}
}
