package fakeserver

import (
	"bytes"
	"net"
	"net/http"
	"sync/atomic"
)

// A request carrying both Content-Length and Transfer-Encoding is how a
// request is smuggled past a proxy that frames it by the other header.
// net/http frames it by Transfer-Encoding and drops Content-Length before
// the handler sees it, and keeps the connection open; RFC 9112 §6.1 says
// a server must close the connection after answering such a request. The
// server therefore watches the plaintext request heads as they are read
// and closes a connection whose chunked request came with a
// Content-Length, so what follows that request is never served.

// scanListener wraps each accepted connection in a scanConn.
type scanListener struct{ net.Listener }

func (l scanListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &scanConn{Conn: c}, nil
}

// scanConn passes reads through its headScan.
type scanConn struct {
	net.Conn
	heads headScan
}

// CloseWrite lets net/http half-close before closing (its RST avoidance):
// without it, closing with unread input would reset the connection and
// could destroy the answer before the client reads it.
func (c *scanConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

func (c *scanConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.heads.scan(p[:n])
	return n, err
}

// headScan looks at the first bytes of every line of a connection's input
// and remembers whether one block of lines (up to a blank line) named both
// Content-Length and Transfer-Encoding. It never parses a body, so a body
// that happens to hold such lines closes its connection too: the cost is a
// reconnect, never a smuggled request. Only the connection's one reader
// calls scan; the handler reads the flag.
type headScan struct {
	line   [len("transfer-encoding:")]byte // the start of the current line
	n      int                             // its length, at most len(line)
	cl, te bool                            // seen in the current block
	both   atomic.Bool                     // some block had both
}

var (
	prefixCL = []byte("content-length:")
	prefixTE = []byte("transfer-encoding:")
)

func (h *headScan) scan(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		h.n += copy(h.line[h.n:], seg)
		if i < 0 {
			return
		}
		h.endLine()
		p = p[i+1:]
	}
}

func (h *headScan) endLine() {
	line := bytes.TrimSuffix(h.line[:h.n], []byte("\r"))
	h.n = 0
	switch {
	case len(line) == 0:
		if h.cl && h.te {
			h.both.Store(true)
		}
		h.cl, h.te = false, false
	case len(line) >= len(prefixCL) && bytes.EqualFold(line[:len(prefixCL)], prefixCL):
		h.cl = true
	case len(line) >= len(prefixTE) && bytes.EqualFold(line[:len(prefixTE)], prefixTE):
		h.te = true
	}
}

// mustClose says whether the connection must close after this request: it
// is chunked and its head (or one before it) also had a Content-Length.
// Under TLS the heads are not visible here, so every chunked request closes
// its connection.
func (cs *connState) mustClose(r *http.Request) bool {
	if len(r.TransferEncoding) == 0 || r.ProtoMajor != 1 {
		return false
	}
	return cs.heads == nil || cs.heads.both.Load()
}
