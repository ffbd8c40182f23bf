//go:build !unix

package load

import "time"

// Without getrusage and a thread CPU clock the generator's CPU reads as 0
// and clientCPU burns a fixed calibration guess.
func readRusage() rusage { return rusage{at: time.Now()} }

func threadCPU() time.Duration { return 0 }
