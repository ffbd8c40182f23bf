package load

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// rampingVUs is k6's ramping-vus: the number of looping VUs follows the
// stages (see vuSchedule). A VU ramped down finishes its iteration within
// gracefulRampDown, then is interrupted; at the end of the stages, VUs in
// flight get gracefulStop.
type rampingVUs struct {
	cfg *Config
	st  *stripe // execution segment; nil: the whole run
}

func (x rampingVUs) plan() plan {
	sched := x.schedule()
	peak := 0
	for _, c := range sched {
		peak = max(peak, c.VUs)
	}
	var steps []stepSpec
	var at time.Duration
	for i, s := range x.cfg.Stages {
		d := s.Duration.D()
		if d > 0 {
			steps = append(steps, stepSpec{name: fmt.Sprintf("stage %d: %s → %g VUs", i+1, fmtDur(d), s.Target),
				start: at, end: at + d, vus: int(s.Target)})
		}
		at += d
	}
	return plan{maxVUs: peak, vus: peak, regular: at, graceful: x.cfg.gracefulStop(), steps: steps,
		text: fmt.Sprintf("up to %s looping VUs for %s over %d stages (gracefulRampDown: %s, gracefulStop: %s)",
			fmt.Sprint(peak), fmtDur(at), len(x.cfg.Stages), fmtDur(x.cfg.gracefulRampDown()), fmtDur(x.cfg.gracefulStop()))}
}

// handle is one ramping VU's switch, flipped by the controller.
type handle struct {
	mu      sync.Mutex
	active  bool
	ctx     context.Context // the VU's iterations run under it
	cancel  context.CancelFunc
	stopper *time.Timer // gracefulRampDown
	wake    chan struct{}
}

func (h *handle) activate(hard context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopper != nil {
		h.stopper.Stop()
		h.stopper = nil
	}
	if h.ctx == nil || h.ctx.Err() != nil {
		h.ctx, h.cancel = context.WithCancel(hard)
	}
	h.active = true
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *handle) deactivate(grace time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.active {
		return
	}
	h.active = false
	cancel := h.cancel
	h.stopper = time.AfterFunc(grace, cancel)
}

func (h *handle) state() (bool, context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active, h.ctx
}

func (x rampingVUs) run(ctx context.Context, e *engine, start time.Time) {
	p := x.plan()
	reg, hard, cancel := deadlines(ctx, start, p.regular, p.graceful)
	defer cancel()
	handles := make([]*handle, p.maxVUs)
	var wg sync.WaitGroup
	for i := range handles {
		h := &handle{wake: make(chan struct{}, 1)}
		handles[i] = h
		v := e.newVU()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.close()
			x.vuLoop(reg, hard, e, v, h)
		}()
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, c := range x.schedule() {
		if !sleepUntil(timer, start.Add(c.At), reg.Done()) {
			break
		}
		for i, h := range handles {
			if i < c.VUs {
				h.activate(hard)
			} else {
				h.deactivate(x.cfg.gracefulRampDown())
			}
		}
	}
	<-reg.Done()
	wg.Wait()
	for _, h := range handles {
		h.mu.Lock()
		if h.stopper != nil {
			h.stopper.Stop()
		}
		if h.cancel != nil {
			h.cancel()
		}
		h.mu.Unlock()
	}
}

func (x rampingVUs) vuLoop(reg, hard context.Context, e *engine, v *vu, h *handle) {
	for {
		active, ictx := h.state()
		if !active {
			v.em.flush() // parked until the ramp needs it again: hand over what is buffered
			select {
			case <-h.wake:
				continue
			case <-reg.Done():
				return
			}
		}
		e.active.Add(1)
		for reg.Err() == nil {
			v.iterate(ictx)
			if active, ictx = h.state(); !active {
				break
			}
		}
		e.active.Add(-1)
		if reg.Err() != nil {
			return
		}
	}
}
