package record

import (
	"fmt"
	"math"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/proxy"
)

// fixedWindowPassed computes, independently of the limiter, what an exact
// fixed-window limiter passes for this run: the open model sends a request
// every 1/rate from the first to the last arrival the generator that ran
// recorded (arrivalSpan: the engine or k6, each on its own clock), windows
// are aligned on the wall clock, and each window passes min(arrivals in
// it, limit) — the article's 66 + 5 × 100 + 100 = 666 for a 6 s run begun
// two thirds into a second. Only the configuration and when the requests
// went out enter it, never what the limiter answered.
func (r *RunResult) fixedWindowPassed() (float64, error) {
	rl := FindRateLimit(r.PathCfg)
	if rl == nil {
		return 0, fmt.Errorf("derived fixedWindowPassed: the run's path has no ratelimit stage")
	}
	if rl.Algorithm != "" && rl.Algorithm != proxy.AlgFixedWindow {
		return 0, fmt.Errorf("derived fixedWindowPassed: the ratelimit stage is %s, not %s", rl.Algorithm, proxy.AlgFixedWindow)
	}
	cfg := &r.Spec.Load
	if cfg.ExecutorName() != load.ConstantArrivalRate {
		return 0, fmt.Errorf("derived fixedWindowPassed: needs a constant-arrival-rate run, not %s", cfg.ExecutorName())
	}
	if r.Arrivals == nil {
		return 0, fmt.Errorf("derived fixedWindowPassed: the run did not record when its requests went out")
	}
	sp, err := r.Arrivals()
	if err != nil {
		return 0, fmt.Errorf("derived fixedWindowPassed: %w", err)
	}
	window := rl.Window.D()
	if window == 0 {
		window = rl.Rate.Per
	}
	limit := int64(math.Round(rl.Rate.PerSecond() * window.Seconds()))
	every := cfg.Rate.Per / time.Duration(cfg.Rate.N)
	return float64(fixedWindowSum(sp.First, every, scheduled(sp, every), window, limit)), nil
}

// scheduled is how many arrivals, one every every, the span holds from its
// first to its last: a generator late by less than half a period still
// counts as on time.
func scheduled(sp ArrivalSpan, every time.Duration) int64 {
	if every <= 0 {
		return 0
	}
	return int64(math.Round(float64(sp.Last.Sub(sp.First))/float64(every))) + 1
}

// fixedWindowSum: n arrivals at start, start+every, …; windows
// [k·window, (k+1)·window) of Unix time; Σ min(count, limit).
func fixedWindowSum(start time.Time, every time.Duration, n int64, window time.Duration, limit int64) int64 {
	if every <= 0 || window <= 0 {
		return 0
	}
	var passed, inWindow int64
	cur := int64(-1)
	for i := int64(0); i < n; i++ {
		k := start.Add(time.Duration(i)*every).UnixNano() / int64(window)
		if k != cur {
			cur, inWindow = k, 0
		}
		inWindow++
		if inWindow <= limit {
			passed++
		}
	}
	return passed
}

func FindRateLimit(p *proxy.PathConfig) *proxy.RateLimitConfig {
	if p == nil {
		return nil
	}
	for _, b := range p.Boxes {
		for _, s := range b.Stages {
			if rl, ok := s.Spec.(*proxy.RateLimitConfig); ok {
				return rl
			}
		}
	}
	return nil
}
