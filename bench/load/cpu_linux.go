package load

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// cpuCores is what the process can use now: GOMAXPROCS, at most the CPUs
// its threads may run on — which a harness that pins the generator to one
// CPU may have just narrowed: since Go 1.25 the runtime lowers GOMAXPROCS
// to a new mask too, but only at its next periodic check, so the mask is
// read here.
func cpuCores() int {
	n := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil && set.Count() > 0 {
		n = min(n, set.Count())
	}
	return n
}
