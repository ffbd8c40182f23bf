//go:build !race

package precise

// raceScheduler: see race_test.go.
const raceScheduler = false
