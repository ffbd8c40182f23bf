//go:build race

package load

// raceEnabled: the race detector slows every goroutine several times over,
// so millisecond timing bands are logged, not asserted, under -race; they
// are asserted in plain `go test` runs and in scripts/bench-engine.sh.
const raceEnabled = true
