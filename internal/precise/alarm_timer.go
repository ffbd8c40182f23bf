package precise

import "time"

// timerAlarm is the portable alarm: the runtime's timer, with its
// millisecond-granular wake-ups on some systems.
type timerAlarm struct{ t *time.Timer }

func newTimerAlarm() alarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &timerAlarm{t: t}
}

func (a *timerAlarm) set(d time.Duration) { a.t.Reset(max(d, 0)) }
func (a *timerAlarm) wait()               { <-a.t.C }
func (a *timerAlarm) close()              { a.t.Stop() }
