package load

import (
	"os"
	"runtime/debug"
)

// TuneGC trades a few MB of heap for throughput while a process's runs
// last and returns the restore: the engine's live heap is small and fixed
// (trends, per-VU buffers) while net/http allocates about 2.5 KB per
// request, so at the default GOGC the collector runs many times a second
// and takes CPU from the requests; 400 runs it a quarter as often for a few
// MB more. A GOGC set in the environment wins. The process's entry points
// (middlebench load, the harness) call it once around their runs, so both
// measure with the same collector; concurrent callers would restore each
// other's setting.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
