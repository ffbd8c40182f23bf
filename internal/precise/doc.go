// Package precise sleeps to within tens of microseconds.
//
// Go's timers on Linux wait in epoll with a millisecond timeout, so a
// time.Sleep can wake up to about a millisecond late. A 450 ms inspection
// delay must be 450 ms ± 1 ms, so delays that are the point of an
// experiment wait on a Sleeper instead: one timerfd (an hrtimer armed for the next deadline,
// with nanosecond resolution) that a goroutine reads through the runtime's
// poller, and that wakes each sleeper at its deadline. Each sleep also
// sets the runtime's timer for its deadline, which goes first when every P
// is busy (see SleepUntil). Elsewhere the Sleeper falls back to
// time.Timer.
package precise
