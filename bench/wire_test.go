package bench

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/middlebench/middlebench/wire"
)

// TestIsolatedExperimentThroughAWire: an isolated experiment's serving
// child makes the wire, and the engine here dials from the wire's
// generator namespace, so TCP's handshake crosses it: connecting reads the
// configured round trip (2 × 10 ms one way), as in process.
func TestIsolatedExperimentThroughAWire(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipping: a wire needs root")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("skipping: a wire needs /dev/net/tun")
	}
	src := `title: isolated through a wire
isolate: {}
server: {work: 1ms}
path:
  wire: {latency: 10ms}
  boxes:
    - name: far
runs:
  - name: five new connections
    load: {vus: 1, iterations: 5, noConnectionReuse: true}
    expect:
      bands:
        - {metric: server requests, equals: "5"}
        - {metric: http_req_connecting min, min: 20ms, max: 25ms}
`
	x := replaySource(t, "isolated-wire.yaml", src)
	if errors.Is(x.Err, wire.ErrUnavailable) {
		t.Skipf("skipping: %v", x.Err)
	}
	if x.Err != nil || !x.Passed() {
		t.Fatalf("err %v, failures %q", x.Err, x.Failures())
	}
	r := x.Runs[0]
	if r.Pinned == "" || r.Path == nil || r.Path.Wire == nil || !strings.HasPrefix(r.Path.Wire.Gen, wire.Prefix) || r.Path.Wire.Up.Passed == 0 {
		t.Errorf("pinned %q, path stats %+v: want the child's wire, with packets", r.Pinned, r.Path)
	}
}
