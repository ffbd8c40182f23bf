//go:build !linux

package realtimetest

import "time"

// stolenCPU: only Linux says what a hypervisor took.
func stolenCPU() time.Duration { return 0 }
