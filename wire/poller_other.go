//go:build !linux

package wire

import (
	"context"
	"sync/atomic"
)

// poller busy-polls the devices on Linux only.
type poller struct {
	ran            atomic.Bool
	realtime       bool
	taken, spunNs  atomic.Int64
	since, starved atomic.Int64
}

func newPoller([2]*line, [2]*tunDev) *poller { return nil }

func (p *poller) run(context.Context) {}
