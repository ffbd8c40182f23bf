//go:build !linux

package proxy

import "net"

// httpLoop is Linux's event loop for a plain-HTTP box's connections
// (httploop_linux.go); elsewhere each connection has a goroutine of the
// lean loop.
type httpLoop struct{}

func newHTTPLoop(*Box) *httpLoop { return nil }

func (*httpLoop) take(net.Conn) bool { return false }

func (*httpLoop) Stop() {}
