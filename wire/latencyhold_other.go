//go:build !linux

package wire

import "io"

func openCPULatency() (io.Closer, error) { return nil, checkAvailable() }
