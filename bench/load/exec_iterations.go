package load

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// perVUIterations is k6's per-vu-iterations: each VU runs iterations
// iterations (default 1), within maxDuration (default 10m) + gracefulStop.
type perVUIterations struct{ cfg *Config }

func (x perVUIterations) iterations() int64 {
	if x.cfg.Iterations == 0 {
		return 1
	}
	return x.cfg.Iterations
}

func (x perVUIterations) plan() plan {
	n := x.cfg.vus()
	return plan{maxVUs: n, vus: n, regular: x.cfg.maxDuration(), graceful: x.cfg.gracefulStop(),
		text: fmt.Sprintf("%d iterations for each of %s (maxDuration: %s, gracefulStop: %s)",
			x.iterations(), plural(n, "VU", "VUs"), fmtDur(x.cfg.maxDuration()), fmtDur(x.cfg.gracefulStop()))}
}

func (x perVUIterations) run(ctx context.Context, e *engine, start time.Time) {
	p := x.plan()
	reg, hard, cancel := deadlines(ctx, start, p.regular, p.graceful)
	defer cancel()
	each := x.iterations()
	runVUs(e, p.maxVUs, func(v *vu) {
		left := each
		e.loop(reg, hard, v, func() bool { left--; return left >= 0 })
	})
}

// sharedIterations is k6's shared-iterations (the --iterations shortcut):
// VUs take iterations from one shared count until it is spent.
type sharedIterations struct{ cfg *Config }

func (x sharedIterations) plan() plan {
	n := x.cfg.vus()
	return plan{maxVUs: n, vus: n, regular: x.cfg.maxDuration(), graceful: x.cfg.gracefulStop(),
		text: fmt.Sprintf("%d iterations shared among %s (maxDuration: %s, gracefulStop: %s)",
			x.cfg.Iterations, plural(n, "VU", "VUs"), fmtDur(x.cfg.maxDuration()), fmtDur(x.cfg.gracefulStop()))}
}

func (x sharedIterations) run(ctx context.Context, e *engine, start time.Time) {
	p := x.plan()
	reg, hard, cancel := deadlines(ctx, start, p.regular, p.graceful)
	defer cancel()
	var taken atomic.Int64
	total := x.cfg.Iterations
	runVUs(e, p.maxVUs, func(v *vu) {
		e.loop(reg, hard, v, func() bool { return taken.Add(1) <= total })
	})
}
