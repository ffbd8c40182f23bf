//go:build !linux

package proxy

import "net"

// Without poll(2) here every request waiting on the next hop past
// watchAfter has its client watched.

func socketFD(net.Conn) int { return -1 }

type clientPoll struct{}

func (*clientPoll) reset()         {}
func (*clientPoll) add(int)        {}
func (*clientPoll) poll()          {}
func (*clientPoll) ready(int) bool { return true }
