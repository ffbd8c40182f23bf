package merge

import (
	"fmt"
	"time"
)

// A segment that passed the start gate owes its document within the run's
// bound (ReceiveOptions.Due: the schedule's longest run with its graceful
// stop, plus the send): its engine stops by then whatever happens, and the
// sender PUTs at once. A missing document past that is a pod that died or
// lost its results, so the merge fails then, naming the segment, instead
// of waiting for --wait. The bound runs from the later of the gate's
// opening and the index's last start request: a pod run again after a
// disruption asks again and owes its document a whole run later.

// dueState is what the receiver knows of the starts (under its mutex).
type dueState struct {
	due     time.Duration     // 0: no bound but Wait
	gateAt  time.Time         // when the gate opened; zero while closed
	started map[int]time.Time // each index's last start request
}

// overdueError names a segment whose document is late.
type overdueError struct {
	index   int
	from    time.Time
	due     time.Duration
	missing string
}

func (e *overdueError) Error() string {
	return fmt.Sprintf("segment %d started at %s and sent no document within --results-due %s: its load pod failed or lost its results (received %s)",
		e.index, e.from.UTC().Format("15:04:05.000"), e.due, e.missing)
}

// overdue returns the first index without a document whose bound passed
// by now (or -1) and the earliest bound still to come (zero if none).
func (d *dueState) overdue(now time.Time, have func(int) bool, expect int) (late int, from, next time.Time) {
	late = -1
	if d.due <= 0 || d.gateAt.IsZero() {
		return late, from, next
	}
	for i := 0; i < expect; i++ {
		if have(i) {
			continue
		}
		s := d.gateAt
		if t, ok := d.started[i]; ok && t.After(s) {
			s = t
		}
		end := s.Add(d.due)
		if !now.Before(end) {
			if late < 0 {
				late, from = i, s
			}
			continue
		}
		if next.IsZero() || end.Before(next) {
			next = end
		}
	}
	return late, from, next
}

// checkDue is overdue on the receiver's state: an error for a late
// segment, else when to look again (zero: only after a change).
func (rc *receiver) checkDue(now time.Time) (next time.Time, err error) {
	rc.mu.Lock()
	late, from, next := rc.due.overdue(now, func(i int) bool { _, ok := rc.parts[i]; return ok }, rc.expect)
	rc.mu.Unlock()
	if late >= 0 {
		return next, &overdueError{index: late, from: from, due: rc.due.due, missing: rc.missing()}
	}
	return next, nil
}

// noteChange wakes the receiver's wait to recompute the bounds.
func (rc *receiver) noteChange() {
	select {
	case rc.changed <- struct{}{}:
	default:
	}
}
