// Package clock is the time source of shapers, limiters and delays (the
// proxy's stages, the fake server's byte caps): the wall clock in
// production, a fake one in tests, so that their logic is tested exactly
// without sleeping.
package clock

import (
	"context"
	"time"

	"github.com/middlebench/middlebench/internal/precise"
)

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of time.Timer a waiter needs.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// Real is the wall clock: time.Now and time.Timer (whose slack on Linux is
// tens of microseconds, unlike a sleeping loop's).
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }

// Sleeper is an optional ability of a Clock: a more precise wait than its
// timers give.
type Sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// Precise is the wall clock whose waits go through a precise.Sleeper
// (a timerfd read through the runtime's poller): tens of µs late instead of the
// runtime timers' 0.1–1 ms on Linux. Timers (NewTimer) are
// still the runtime's.
type Precise struct {
	Real
	S *precise.Sleeper
}

// Sleep waits for d on the precise sleeper.
func (p Precise) Sleep(ctx context.Context, d time.Duration) error { return p.S.Sleep(ctx, d) }

// Wait blocks until d has passed on c or ctx is done; it returns ctx's
// error in the latter case. A d of zero or less returns at once.
func Wait(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if s, ok := c.(Sleeper); ok {
		return s.Sleep(ctx, d)
	}
	t := c.NewTimer(d)
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// Until blocks until c reaches deadline or ctx is done.
func Until(ctx context.Context, c Clock, deadline time.Time) error {
	return Wait(ctx, c, deadline.Sub(c.Now()))
}
