// Package cpuburn does real CPU work for a given CPU time: the fake
// server's CPU-bound handler (seed 004) and the load engine's client-side
// work per response (E7). It counts the thread's CPU time, not wall time,
// so when more burners than cores run, each takes longer in wall time —
// as a busy loop or a bcrypt hash does.
package cpuburn

import (
	"context"
	"runtime"
	"time"
)

// Burn spins until the calling goroutine's thread has used d of CPU time
// and returns the wall time it took. Where no thread CPU clock exists it
// spins for d of wall time instead.
func Burn(d time.Duration) time.Duration {
	took, _ := BurnContext(context.Background(), d)
	return took
}

// BurnContext is Burn that stops early, with ctx's error, once ctx is
// done (checked after every chunk of a few µs): a client gone or a server
// shutting down does not leave a core spinning.
func BurnContext(ctx context.Context, d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, nil
	}
	start := time.Now()
	runtime.LockOSThread() // thread CPU time is per thread: keep this one
	defer runtime.UnlockOSThread()
	t0, ok := ThreadTime()
	var sink uint64
	for {
		if err := ctx.Err(); err != nil {
			keep(sink)
			return time.Since(start), err
		}
		sink = spinChunk(sink)
		if !ok { // no per-thread clock: spin for wall time instead
			if time.Since(start) >= d {
				break
			}
			continue
		}
		t, _ := ThreadTime()
		if t-t0 >= d {
			break
		}
	}
	keep(sink)
	return time.Since(start), nil
}

// keep uses the spin's result so the compiler cannot drop the work.
func keep(x uint64) {
	if x == 0 { // xorshift of a non-zero state never reaches 0
		runtime.Gosched()
	}
}

// spinChunk does about 10–20 µs of integer work (xorshift), small enough that
// the overshoot past d stays in the microseconds.
func spinChunk(x uint64) uint64 {
	x |= 1
	for range 8192 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// SpinMillis spins until the wall clock's millisecond count has moved on
// by n: exactly what a k6 script's
//
//	const end = Date.now() + n; while (Date.now() < end) {}
//
// does (k6 has no finer clock), so the engine and k6 do the same work per
// iteration: between n−1 and n ms of spinning, n − ½ on average, started
// at a random phase of the millisecond.
func SpinMillis(n int64) {
	for end := time.Now().UnixMilli() + n; time.Now().UnixMilli() < end; {
	}
}
