package fakeserver

import (
	"context"
	"time"

	"github.com/middlebench/middlebench/precise"
	"github.com/middlebench/middlebench/units"
	"golang.org/x/time/rate"
)

// byteCap paces bytes through a token bucket shared by every connection,
// like a server's egress (or ingress) limit. A nil *byteCap does not limit.
type byteCap struct {
	lim     *rate.Limiter
	chunk   int // largest piece paid for at once: a quarter of the bucket
	sleeper *precise.Sleeper
}

// capBurst sizes the bucket: 10 ms worth of bytes, between 1 KiB and 32 KiB.
// The bucket starts full, so a run's first 32 KiB are free: 0.4 % of the
// 8 MiB the article uploads. Pieces are a quarter of it, so a reader or
// writer that comes back late finds the tokens it missed still there.
func capBurst(r units.ByteRate) int {
	return int(min(max(r.BytesPerSecond()/100, 1024), 32*1024))
}

func newByteCap(r units.ByteRate, sleeper *precise.Sleeper) *byteCap {
	if r <= 0 {
		return nil
	}
	b := capBurst(r)
	return &byteCap{lim: rate.NewLimiter(rate.Limit(r.BytesPerSecond()), b), chunk: max(b/4, 1), sleeper: sleeper}
}

// pay blocks until n bytes (n <= chunk) may pass. The reservation is taken
// from the bucket's schedule, so a late wake-up is not carried over to the
// next chunk and the long-run rate stays exact.
func (c *byteCap) pay(ctx context.Context, n int) error {
	if c == nil || n <= 0 {
		return nil
	}
	now := time.Now()
	r := c.lim.ReserveN(now, n)
	if !r.OK() { // n > burst: cannot happen, pieces are cut to chunk
		return nil
	}
	if d := r.DelayFrom(now); d > 0 {
		if err := c.sleeper.SleepUntil(ctx, now.Add(d)); err != nil {
			r.CancelAt(time.Now())
			return err
		}
	}
	return nil
}

// piece returns how many bytes to move at once.
func (c *byteCap) piece(buf int) int {
	if c == nil {
		return buf
	}
	return min(buf, c.chunk)
}
