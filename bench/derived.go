package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/proxy"
)

// fixedWindowPassed computes, independently of the limiter, what an exact
// fixed-window limiter passes for this run: the open model starts
// iteration i at start + i/rate, windows are aligned on the wall clock,
// and each window passes min(arrivals in it, limit) — the article's
// 66 + 5 × 100 + 100 = 666 for a 6 s run begun two thirds into a second.
func (r *RunResult) fixedWindowPassed() (float64, error) {
	rl := findRateLimit(r.PathCfg)
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
	window := rl.Window.D()
	if window == 0 {
		window = rl.Rate.Per
	}
	limit := int64(math.Round(rl.Rate.PerSecond() * window.Seconds()))
	return float64(fixedWindowSum(r.Result.Start, cfg.Rate.Per/time.Duration(cfg.Rate.N), cfg.Duration.D(), window, limit)), nil
}

// fixedWindowSum: arrivals at start, start+every, … before start+length;
// windows [k·window, (k+1)·window) of Unix time; Σ min(count, limit).
func fixedWindowSum(start time.Time, every, length, window time.Duration, limit int64) int64 {
	if every <= 0 || window <= 0 {
		return 0
	}
	var passed, inWindow int64
	cur := int64(-1)
	for off := time.Duration(0); off < length; off += every {
		k := start.Add(off).UnixNano() / int64(window)
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

func findRateLimit(p *proxy.PathConfig) *proxy.RateLimitConfig {
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
