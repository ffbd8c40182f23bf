//go:build !linux

package load

import "runtime"

// cpuCores is what the process can use: GOMAXPROCS, at most the CPUs.
func cpuCores() int { return min(runtime.GOMAXPROCS(0), runtime.NumCPU()) }
