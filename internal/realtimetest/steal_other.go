//go:build !linux

package realtimetest

import "time"

// Stolen: only Linux says what a hypervisor took.
func Stolen() time.Duration { return 0 }
