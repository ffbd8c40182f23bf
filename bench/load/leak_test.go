package load

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/middlebench/middlebench/internal/units"
)

// TestNoGoroutineLeft: a harness calls Run many times in one process;
// every run must take its goroutines (VUs, transports, samplers,
// scheduler, sleeper) with it.
func TestNoGoroutineLeft(t *testing.T) {
	s := newServer(t, sleepyHandler(time.Millisecond))
	before := goleak.IgnoreCurrent()
	rate, _ := units.ParseRate("100/s")
	runFor(t, &Config{URL: s.URL, VUs: 3, Duration: dur(300 * time.Millisecond)}, 10*time.Second)
	runFor(t, &Config{URL: s.URL, Rate: rate, Duration: dur(300 * time.Millisecond), PreAllocatedVUs: 2, MaxVUs: 4}, 10*time.Second)
	runFor(t, &Config{URL: s.URL, Stages: []Stage{stage(200*time.Millisecond, 3), stage(100*time.Millisecond, 0)}}, 10*time.Second)
	s.CloseClientConnections()
	goleak.VerifyNone(t, before)
}
