package load

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// constantVUs is k6's constant-vus: VUs loop iterations for duration, then
// in-flight iterations get gracefulStop to finish.
type constantVUs struct{ cfg *Config }

func (x constantVUs) plan() plan {
	n := x.cfg.vus()
	return plan{maxVUs: n, vus: n, regular: x.cfg.Duration.D(), graceful: x.cfg.gracefulStop(),
		text: fmt.Sprintf("%s for %s (gracefulStop: %s)", plural(n, "looping VU", "looping VUs"), fmtDur(x.cfg.Duration.D()), fmtDur(x.cfg.gracefulStop()))}
}

func (x constantVUs) run(ctx context.Context, e *engine, start time.Time) {
	p := x.plan()
	reg, hard, cancel := deadlines(ctx, start, p.regular, p.graceful)
	defer cancel()
	runVUs(e, p.maxVUs, func(v *vu) { e.loop(reg, hard, v, always) })
}

func always() bool { return true }

// runVUs allocates n VUs, runs body on each in its own goroutine and waits.
func runVUs(e *engine, n int, body func(*vu)) {
	var wg sync.WaitGroup
	for range n {
		v := e.newVU()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.close()
			body(v)
		}()
	}
	wg.Wait()
}
