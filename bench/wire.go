package bench

import (
	"context"
	"net"

	"github.com/middlebench/middlebench/wire"
)

// A run whose path has a wire is loaded from the wire's generator
// namespace: the engine dials there (so its SYN crosses the wire), and
// real k6 runs there under `ip netns exec` (printServeHelp).

// wired is a target whose path may have a wire.
type wired interface{ wire() *wire.Wire }

// wireDial is how the load dials the target: from the wire's generator
// namespace, or nil (the engine's own dialer) when there is no wire.
func wireDial(t target) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if wt, ok := t.(wired); ok && wt.wire() != nil {
		return wt.wire().Gen().DialContext
	}
	if ct, ok := t.(*childTarget); ok && ct.gen != nil {
		return ct.gen.DialContext
	}
	return nil
}

// openGen opens, once, the generator namespace of the wire an isolated
// experiment's serving child made (it said its name), for the engine's
// dials; close releases it, so nothing outlives the run. Opened for each
// dial (an open(2) of /run/netns and a close), it cost the dial a system
// call pair that the in-process wire's dial does not pay.
func (t *childTarget) openGen() error {
	if t.info.Gen == "" {
		return nil
	}
	ns, err := wire.OpenNamespace(t.info.Gen)
	if err != nil {
		return err
	}
	t.gen = ns
	return nil
}

func (t *localTarget) wire() *wire.Wire {
	if t.path == nil {
		return nil
	}
	return t.path.Wire()
}

// genNamespace names the generator's namespace of t's wire, or "".
func (t *localTarget) genNamespace() string {
	if w := t.wire(); w != nil {
		return w.Gen().Name()
	}
	return ""
}
