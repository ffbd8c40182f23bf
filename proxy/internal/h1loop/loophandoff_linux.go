//go:build linux

package h1loop

import (
	"bytes"
	"net"
	"os"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/socket"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// The HTTP loop hands a client connection to a goroutine of the lean loop
// (lean.go), which serves it from then on, at two points: before a
// request it does not take whole has begun (handOff: the lean loop reads
// it again from the bytes the loop had read), and when the next hop's
// answer is one the lean forwarder reads with net/http (handOffAnswer: the
// request went out and was counted; the goroutine reads the answer from
// what the loop had read of it on). Both sockets go back to net's poller.

// handOff gives c to the lean loop from its current request on.
func (lp *httpLoop) handOff(c *loopClient) {
	lp.handed++
	pending := bytes.Clone((*c.in)[c.r:c.w])
	t0 := c.t0
	conn, err := lp.netConn(c)
	if err != nil {
		lp.e.cfg.Log.Printf("conn %d: to the lean loop: %v; closed", c.id, err)
		lp.dropClient(c)
		return
	}
	if lp.give(c, conn, pending) {
		go lp.e.serveLeanFrom(c.tc, t0)
	}
}

// handOffAnswer gives c, and its connection to the next hop, to the lean
// loop, which reads the answer with net/http and serves c from then on.
func (lp *httpLoop) handOffAnswer(c *loopClient) {
	lp.handed++
	u := c.up
	in := *c.in
	head := bytes.Clone(in[c.r : c.r+c.head])
	pending := bytes.Clone(in[c.r+c.head : c.w])
	answer := bytes.Clone((*u.in)[u.r:u.w])
	stage, reqID, t0 := c.stageHdr, c.reqID, c.t0
	c.up, u.c = nil, nil
	upConn, uerr := lp.netConnUp(u)
	conn, err := lp.netConn(c)
	if err == nil {
		err = uerr
	}
	if err != nil {
		lp.e.cfg.Log.Printf("conn %d: to the lean loop with its answer: %v; closed", c.id, err)
		for _, nc := range []net.Conn{upConn, conn} {
			if nc != nil {
				nc.Close()
			}
		}
		lp.dropClient(c)
		return
	}
	if !lp.give(c, conn, pending) {
		upConn.Close()
		return
	}
	go lp.e.resumeLean(c.tc, head, reqID, stage, upstream.NewConnFrom(upConn, answer), t0)
}

// netConn takes c out of the loop and makes a net.Conn of its socket.
func (lp *httpLoop) netConn(c *loopClient) (net.Conn, error) {
	lp.detachClient(c)
	return fileConn(c.fd, "client")
}

// netConnUp takes u out of the loop and makes a net.Conn of its socket.
func (lp *httpLoop) netConnUp(u *loopUp) (net.Conn, error) {
	u.gone = true
	u.tIdle.Clear()
	if u.events != 0 {
		_ = lp.Set.Ctl(u.fd, u.gen, u.events, 0)
	}
	if u.fd < len(lp.byFD) && lp.byFD[u.fd].u == u {
		lp.byFD[u.fd] = loopEnt{}
	}
	copybuf.Put(u.in)
	u.in = nil
	return fileConn(u.fd, "next hop")
}

// fileConn makes a net.Conn of socket fd (net duplicates it; fd is closed).
func fileConn(fd int, name string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return net.FileConn(f)
}

// give makes conn, with the bytes read from it first, the socket under
// c's tracked connection, unless the box is closing (its close would not
// see the new socket): then conn is closed; false.
func (lp *httpLoop) give(c *loopClient, conn net.Conn, pending []byte) bool {
	if !lp.e.cfg.Conns.WhileOpen(func() { c.tc.Conn = &primedConn{Conn: conn, pending: pending} }) {
		conn.Close()
		lp.dropClient(c)
		return false
	}
	return true
}

// dropClient ends a client whose socket is closed already.
func (lp *httpLoop) dropClient(c *loopClient) {
	lp.e.cfg.Conns.Untrack(c.tc)
	c.tc.Close()
	lp.e.cfg.WG.Done()
}

// primedConn is a connection whose first reads return what was read
// from it before.
type primedConn struct {
	net.Conn
	pending []byte
}

func (c *primedConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// NetConn returns the socket (exchange.ConnID, socket.FD, abortConn).
func (c *primedConn) NetConn() net.Conn { return c.Conn }

func (c *primedConn) CloseWrite() error { return socket.CloseWrite(c.Conn) }

func (c *primedConn) CloseRead() error { return socket.CloseRead(c.Conn) }
