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
