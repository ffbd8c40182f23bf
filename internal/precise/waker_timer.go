package precise

import "time"

// timerWaker is the portable fallback: the runtime's timer, with its
// millisecond-granular wake-ups on some systems.
type timerWaker struct{ interrupts chan struct{} }

func (w *timerWaker) wait(d time.Duration) {
	if d < 0 {
		<-w.interrupts
		return
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-w.interrupts:
		t.Stop()
	}
}

func (w *timerWaker) interrupt() {
	select {
	case w.interrupts <- struct{}{}:
	default:
	}
}

func (w *timerWaker) close() {}
