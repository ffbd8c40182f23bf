//go:build !linux

package proxy

import (
	"errors"
	"net"
)

const backlogSupported = false

func listenBacklog(addr string, backlog int) (net.Listener, error) {
	return nil, errors.New("a listen backlog needs Linux")
}
