//go:build !linux

package bench

import (
	"os/exec"
	"runtime"
)

// Other systems have no portable affinity call: nothing is pinned, and the
// results say so.
func pinSelf([]int) (func() error, error)      { return func() error { return nil }, nil }
func startPinned(cmd *exec.Cmd, _ []int) error { return cmd.Start() }
func allCPUs() []int {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

const canPin = false
