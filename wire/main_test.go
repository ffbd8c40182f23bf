package wire

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets this test binary be a wire's delay line process, as
// middlebench's main does, so the tests run the wire as middlebench does.
func TestMain(m *testing.M) {
	if line, err := ServeLineProcess(); line {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	EnableLineProcess()
	os.Exit(m.Run())
}
