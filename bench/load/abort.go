package load

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

// abortEvery is how often k6 evaluates thresholds during a run.
const abortEvery = 2 * time.Second

// aborter ends a run when a threshold with abortOnFail fails, as k6 does:
// evaluated every 2 s on what was measured so far, not before the
// threshold's delayAbortEval has passed since the start.
type aborter struct {
	ctx    context.Context
	cancel context.CancelFunc
	ts     []metrics.Threshold // those with AbortOnFail
	start  time.Time
	next   time.Time
	hit    atomic.Bool
}

// newAborter starts the clock of the abort thresholds at start (the
// evaluations and each delayAbortEval count from it).
func newAborter(parent context.Context, all []metrics.Threshold, start time.Time) *aborter {
	a := &aborter{start: start}
	a.ctx, a.cancel = context.WithCancel(parent)
	for _, t := range all {
		if t.AbortOnFail {
			a.ts = append(a.ts, t)
		}
	}
	a.next = a.start.Add(abortEvery)
	return a
}

func (a *aborter) stop() { a.cancel() }

// fired says whether a threshold ended the run.
func (a *aborter) fired() bool { return a.hit.Load() }

// due says whether it is time to evaluate (called by the collector after
// each batch; cheap when there is nothing to do).
func (a *aborter) due(now time.Time) bool {
	if a == nil || len(a.ts) == 0 || a.hit.Load() || now.Before(a.next) {
		return false
	}
	a.next = now.Add(abortEvery)
	return true
}

// check evaluates the abort thresholds on d and cancels the run if one
// that is past its delay failed.
func (a *aborter) check(d *metrics.Document, now time.Time) {
	for _, t := range a.ts {
		if now.Sub(a.start) < t.DelayAbortEval {
			continue
		}
		if _, ok, err := t.Eval(d); err == nil && !ok {
			a.hit.Store(true)
			a.cancel()
			return
		}
	}
}
