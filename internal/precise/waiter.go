package precise

import "time"

// Waiter is a timerfd for one goroutine that waits on its own locked OS
// thread (a packet releaser): a wake-up is one thread switch, where a
// Sleeper hands it on from its loop to the sleeping goroutine. Its wait
// is a blocking system call, which holds the thread's P until sysmon takes
// it back: a process with one P stands still meanwhile.
// NewWaiter locks the calling goroutine to its thread for life; call it
// from the goroutine that waits. Wake may be called from anywhere.
type Waiter struct{ w waker }

// waker is the Waiter's platform part: block until a deadline or an
// interruption.
type waker interface {
	wait(d time.Duration) // returns after d, or earlier when interrupted
	interrupt()
	close()
}

// NewWaiter makes the calling goroutine's thread a precise waiter.
func NewWaiter() *Waiter { return &Waiter{w: newWaker()} }

// WaitUntil blocks until t (on the monotonic clock) or until Wake; a zero
// t waits for Wake only. A Wake that came first ends the next wait at once.
func (w *Waiter) WaitUntil(t time.Time) {
	d := time.Duration(-1)
	if !t.IsZero() {
		if d = time.Until(t); d <= 0 {
			return
		}
	}
	w.w.wait(d)
}

// Wake ends the current or the next WaitUntil.
func (w *Waiter) Wake() { w.w.interrupt() }

// Close releases the waiter's file descriptors; no wait may follow.
func (w *Waiter) Close() { w.w.close() }
