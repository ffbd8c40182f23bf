package load

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/precise"
)

// arrivalRate is k6's constant-arrival-rate and ramping-arrival-rate: a
// pacer says when each iteration starts; an arrival that finds no idle VU
// is dropped (dropped_iterations), never queued, and if fewer than maxVUs
// exist one more is started for later arrivals (k6 starts it in the
// background and drops the arrival all the same).
type arrivalRate struct {
	cfg    *Config
	pacer  pacer
	end    time.Duration // last possible arrival
	steps  []stepSpec
	text   string
	peak   float64 // arrivals per second, the highest target
	preVUs int
	maxVUs int
}

func arrivalVUs(cfg *Config) (pre, maxVUs int) {
	pre = cfg.PreAllocatedVUs
	if pre == 0 {
		pre = max(cfg.VUs, 1)
	}
	maxVUs = max(cfg.MaxVUs, pre)
	return pre, maxVUs
}

func newConstantArrivalRate(cfg *Config) *arrivalRate {
	pre, mx := arrivalVUs(cfg)
	d := cfg.Duration.D()
	return &arrivalRate{cfg: cfg, pacer: constantPacer{n: cfg.Rate.N, per: cfg.Rate.Per, duration: d}, end: d,
		peak: cfg.Rate.PerSecond(), preVUs: pre, maxVUs: mx,
		text: fmt.Sprintf("%.2f iterations/s for %s (maxVUs: %d-%d, gracefulStop: %s)",
			cfg.Rate.PerSecond(), fmtDur(d), pre, mx, fmtDur(cfg.gracefulStop()))}
}

func newRampingArrivalRate(cfg *Config) *arrivalRate {
	pre, mx := arrivalVUs(cfg)
	unit := cfg.timeUnit()
	perSec := func(x float64) float64 { return x * float64(time.Second) / float64(unit) }
	x := &arrivalRate{cfg: cfg, pacer: newRampingPacer(cfg.StartRate, unit, cfg.Stages), preVUs: pre, maxVUs: mx}
	peak := perSec(cfg.StartRate)
	var at time.Duration
	for i, s := range cfg.Stages {
		d := s.Duration.D()
		r := perSec(s.Target)
		peak = max(peak, r)
		if d > 0 {
			x.steps = append(x.steps, stepSpec{name: fmt.Sprintf("stage %d: %s → %s/s", i+1, fmtDur(d), trimFloat(r)),
				start: at, end: at + d, rate: r})
		}
		at += d
	}
	x.end, x.peak = at, peak
	x.text = fmt.Sprintf("Up to %.2f iterations/s for %s over %d stages (maxVUs: %d-%d, gracefulStop: %s)",
		peak, fmtDur(at), len(cfg.Stages), pre, mx, fmtDur(cfg.gracefulStop()))
	return x
}

func trimFloat(f float64) string { return fmt.Sprintf("%.6g", f) }

func (x *arrivalRate) plan() plan {
	return plan{maxVUs: x.maxVUs, vus: x.preVUs, regular: x.end, graceful: x.cfg.gracefulStop(), steps: x.steps, text: x.text, rate: x.peak}
}

func (x *arrivalRate) run(ctx context.Context, e *engine, start time.Time) {
	// The schedule is not cut by a deadline: every arrival before the end
	// is started (or dropped) even if the scheduler runs late, so counts are
	// exact; hard bounds the iterations in flight.
	hard, cancelHard := context.WithDeadline(ctx, start.Add(x.end+x.cfg.gracefulStop()))
	defer cancelHard()
	work := make(chan struct{}) // unbuffered: a send succeeds only if a VU is idle
	done := make(chan struct{})
	var wg, ready sync.WaitGroup
	startVU := func(r *sync.WaitGroup) {
		v := e.newVU()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.close()
			x.vuLoop(hard, e, v, work, done, r)
		}()
	}
	ready.Add(x.preVUs)
	for range x.preVUs {
		startVU(&ready)
	}
	ready.Wait() // the pre-allocated VUs wait for work before the first arrival
	em := e.emitter()
	// Arrivals wait on a precise sleeper: Go's timers wake 0.3–1 ms late,
	// enough to move an arrival across a rate limiter's window boundary.
	sleeper := precise.NewSleeper()
	defer sleeper.Close()
	for i := int64(0); ; i++ {
		at, ok := x.pacer.at(i)
		if !ok || ctx.Err() != nil {
			break
		}
		if sleeper.SleepUntil(ctx, start.Add(at)) != nil {
			break
		}
		select {
		case work <- struct{}{}:
			continue
		default:
		}
		r := record{kind: kindDropped, end: e.clk.now()}
		em.emit(&r)
		e.drops.Add(1)
		if e.allocated() < x.maxVUs {
			startVU(nil)
		}
	}
	em.flush()
	close(done)
	wg.Wait()
}

func (x *arrivalRate) vuLoop(hard context.Context, e *engine, v *vu, work <-chan struct{}, done <-chan struct{}, ready *sync.WaitGroup) {
	if ready != nil {
		ready.Done()
	}
	// A VU counts in the vus gauge while it runs an iteration, as k6
	// counts an arrival-rate executor's VUs: the idle pre-allocated ones
	// are in vus_max only.
	iterate := func() {
		e.active.Add(1)
		defer e.active.Add(-1)
		v.iterate(hard)
	}
	for {
		select {
		case <-work:
			iterate()
			continue
		default:
		}
		v.em.flush() // about to wait: hand over what is buffered
		select {
		case <-work:
			iterate()
		case <-done:
			return
		case <-hard.Done():
			return
		}
	}
}
