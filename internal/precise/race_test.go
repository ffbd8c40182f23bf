//go:build race

package precise

// raceScheduler: the race detector's runtime puts a woken goroutine at the
// tail of its P's run queue half the time instead of next in line
// (runtime.randomizeScheduler), to shake out ordering assumptions.
const raceScheduler = true
