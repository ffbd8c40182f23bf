package wire

import "os"

// lineEnv carries the child's orders; procCapableEnv says a binary serves
// them (set by EnableLineProcess).
const (
	lineEnv        = "MIDDLEBENCH_WIRE_LINE"
	procCapableEnv = "MIDDLEBENCH_WIRE_LINE_CAPABLE"
)

// EnableLineProcess says this binary runs a wire's delay line in a child
// of itself: main must call ServeLineProcess before anything else (as
// middlebench's does; a test binary's TestMain can too). Without it a wire
// moves packets in the calling process.
//
// The variable holds the binary's path, so that another program it starts
// (which inherits the environment but does not serve lines) is not
// re-executed as a line.
func EnableLineProcess() {
	if exe, err := os.Executable(); err == nil {
		_ = os.Setenv(procCapableEnv, exe)
	}
}

func lineProcessEnabled() bool {
	exe, err := os.Executable()
	return err == nil && os.Getenv(procCapableEnv) == exe
}
