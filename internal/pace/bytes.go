// Package pace lets bytes through at a rate: the token bucket behind the
// proxy's bandwidth stage and the fake server's read and write caps.
package pace

import (
	"context"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/units"
	"golang.org/x/time/rate"
)

// Bytes paces bytes through a token bucket on a clock. Bytes pass in pieces
// of a quarter of the bucket: a reader or writer that comes back late finds
// the tokens it missed still in the bucket, where pieces the size of the
// bucket would lose them (a 2 MiB/s cap ran 6–8 % slow under the race
// detector's slower loop). A nil *Bytes lets everything through at once.
type Bytes struct {
	lim   *rate.Limiter
	burst int
	piece int
	clk   clock.Clock
}

// Burst is the bucket size for a rate: set when positive, else 10 ms of the
// rate within [512 B, 64 KiB]. The bucket starts full, so that much passes
// at once; it keeps the cap exact over short spans while a 32 KiB copy is
// cut into a few reservations at most.
func Burst(r units.ByteRate, set units.Size) int {
	if set > 0 {
		return int(set)
	}
	return min(max(int(r.BytesPerSecond()/100), 512), 64<<10)
}

// NewBytes returns a pacer of r bytes per second with a bucket of
// Burst(r, burst), or nil when r is 0.
func NewBytes(r units.ByteRate, burst units.Size, clk clock.Clock) *Bytes {
	if r <= 0 {
		return nil
	}
	b := Burst(r, burst)
	return &Bytes{lim: rate.NewLimiter(rate.Limit(r.BytesPerSecond()), b), burst: b, piece: max(b/4, 1), clk: clk}
}

// Piece returns how many of n bytes to move at once.
func (p *Bytes) Piece(n int) int {
	if p == nil {
		return n
	}
	return min(n, p.piece)
}

// Delay reserves n bytes (n ≤ the bucket) at now and says how long to
// wait: the pure part, tested on a fake clock. The reservation is taken from
// the bucket's schedule, so a late wake-up is not carried over.
func (p *Bytes) Delay(now time.Time, n int) time.Duration {
	return p.lim.ReserveN(now, n).DelayFrom(now)
}

// Wait blocks until n bytes may pass, piece by piece, and returns the time
// it waited; when ctx ends first, the reservation waited for is given back.
func (p *Bytes) Wait(ctx context.Context, n int) (time.Duration, error) {
	if p == nil {
		return 0, nil
	}
	var total time.Duration
	for n > 0 {
		k := min(n, p.piece)
		now := p.clk.Now()
		r := p.lim.ReserveN(now, k)
		if d := r.DelayFrom(now); d > 0 {
			if err := clock.Wait(ctx, p.clk, d); err != nil {
				r.CancelAt(p.clk.Now())
				return total, err
			}
			total += d
		}
		n -= k
	}
	return total, nil
}
