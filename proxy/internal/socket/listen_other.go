//go:build !linux

package socket

import (
	"errors"
	"net"
)

// BacklogSupported: ListenBacklog works here (it needs Linux).
const BacklogSupported = false

// ListenBacklog fails: a listen backlog needs Linux.
func ListenBacklog(addr string, backlog int) (net.Listener, error) {
	return nil, errors.New("a listen backlog needs Linux")
}
