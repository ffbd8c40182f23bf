//go:build !linux

package h1loop

import "net"

// httpLoop is Linux's event loop for a plain-HTTP box's connections
// (httploop_linux.go); elsewhere each connection has a goroutine of the
// lean loop.
type httpLoop struct{ served, handed int64 }

func newHTTPLoop(*Engine) *httpLoop { return nil }

func (*httpLoop) take(net.Conn) bool { return false }

func (*httpLoop) Stop() {}

func (*httpLoop) inPoller() bool { return false }
