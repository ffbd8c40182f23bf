//go:build !linux

package fakeserver

import "time"

func threadCPUTime() (time.Duration, bool) { return 0, false }
