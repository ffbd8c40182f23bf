//go:build !unix

package cpuburn

import "time"

// ThreadTime is not available here: Burn spins for wall time.
func ThreadTime() (time.Duration, bool) { return 0, false }
