package load

import (
	"context"
	"fmt"
	"time"
)

// executor is one of k6's executors: it drives VUs from the run's start
// and returns when its last VU is done. Every executor is bounded: by its
// schedule plus gracefulStop, or by maxDuration plus gracefulStop.
type executor interface {
	run(ctx context.Context, e *engine, start time.Time)
	plan() plan
}

// plan is what an executor will do, known before it starts.
type plan struct {
	maxVUs   int           // VUs it may allocate (vus_max)
	regular  time.Duration // when it stops starting iterations (for count-based ones, maxDuration)
	graceful time.Duration // gracefulStop
	steps    []stepSpec    // a sweep's steps; nil when the run is one step
	text     string        // "3 looping VUs for 5s (gracefulStop: 30s)"
	rate     float64       // arrivals per second (open model), the last step's for sweeps
	vus      int           // VUs (closed model), the peak for ramping-vus
}

// stepSpec is one step of a sweep.
type stepSpec struct {
	name       string
	start, end time.Duration
	vus        int
	rate       float64 // per second
}

func newExecutor(cfg *Config, st *stripe) (executor, error) {
	if !st.isFull() {
		return newSegmentedExecutor(cfg, st)
	}
	switch cfg.ExecutorName() {
	case ConstantVUs:
		return constantVUs{cfg}, nil
	case RampingVUs:
		return rampingVUs{cfg: cfg}, nil
	case PerVUIterations:
		return perVUIterations{cfg}, nil
	case SharedIterations:
		return sharedIterations{cfg}, nil
	case ConstantArrivalRate:
		return newConstantArrivalRate(cfg), nil
	case RampingArrivalRate:
		return newRampingArrivalRate(cfg), nil
	}
	return nil, configErr("executor", "unknown executor %q", cfg.ExecutorName())
}

func fmtDur(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
