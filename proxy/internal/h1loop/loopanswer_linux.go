//go:build linux

package h1loop

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/middlebench/middlebench/internal/h1"
	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// The next hop's answer on the HTTP loop, on its way to the client: its
// head sorted and rewritten as the lean forwarder does, its body moved on
// read by read (held back while the client does not take it), and the
// ways it can go wrong answered as Config.ProxyError says.

// headError is net/http's word for an answer head that ended (err)
// before its blank line.
func headError(partial []byte, method string, err error) error {
	br := bufio.NewReader(io.MultiReader(bytes.NewReader(partial), errReader{err}))
	if _, herr := http.ReadResponse(br, &http.Request{Method: method}); herr != nil {
		return herr
	}
	return err
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// upFailed ends an exchange on u that failed before its answer began: a
// reused connection that failed before any byte came is replaced and the
// request sent again (it has no body), as the lean forwarder does; else
// the client gets the 502 or 504 Config.ProxyError gives.
func (lp *httpLoop) upFailed(u *loopUp, err error) {
	c := u.c
	retry := u.reused && !u.got && !errors.Is(err, errTimeout)
	lp.closeUp(u)
	if c == nil || c.gone {
		return
	}
	c.tResp.Clear()
	if retry {
		lp.forward(c)
		return
	}
	lp.fail(c, err)
}

// fail answers c's request with Config.ProxyError's answer to err.
func (lp *httpLoop) fail(c *loopClient, err error) {
	c.tRead.Clear()
	c.tResp.Clear()
	if c.up != nil {
		lp.closeUp(c.up)
	}
	sc := &lp.sc
	r := sc.answering(c)
	w := sc.writer(r, c.stageHdr)
	lp.e.cfg.ProxyError(w, r, err)
	w.finish()
	lp.finishAnswer(c, sc.flush(), w.closeAfter)
}

// pump moves what u holds of c's answer on to c: its head first, then
// body bytes as they come.
func (lp *httpLoop) pump(c *loopClient) {
	u := c.up
	if c.state == clientWaiting && !lp.answerHead(c, u) {
		return
	}
	sc := &lp.sc
	out := sc.flush()
	done := u.noBody || !u.chunked && u.left == 0
	in := *u.in
	for !done && u.r < u.w {
		p := in[u.r:u.w]
		k := int(min(int64(len(p)), u.left))
		var err error
		if u.chunked {
			k, done, err = u.chunks.scan(p)
			if err == nil && !done && k < len(p) && u.r+k == 0 && u.w == len(in) {
				err = bufio.ErrBufferFull // a line longer than the buffer, as copyChunked's ReadSlice says
			}
		} else {
			u.left -= int64(k)
			done = u.left == 0
		}
		out = append(out, p[:k]...)
		u.r += k
		if err != nil {
			sc.out.b = out
			lp.send(c, out)
			lp.cut(c, u, err)
			return
		}
		if k < len(p) && !done {
			break // a chunk line not yet ended: it waits in u.in for the rest
		}
	}
	sc.out.b = out
	if u.r == u.w {
		u.r, u.w = 0, 0
	}
	lp.send(c, out)
	switch {
	case c.gone:
	case done:
		lp.answerDone(c, u)
	case len(c.pending) > 0 && !u.paused:
		u.paused = true // read on once the client has taken what waits
		lp.watchUp(u)
	}
}

// resume reads the next hop again once the client has taken what waited.
func (lp *httpLoop) resume(c *loopClient) {
	if u := c.up; u != nil && u.paused {
		u.paused = false
		lp.watchUp(u)
	}
}

// answerHead sorts the answer's head once u holds it whole and writes the
// client's into the scratch writer; false while it is incomplete, or when
// the answer went another way (handed over, failed).
func (lp *httpLoop) answerHead(c *loopClient, u *loopUp) bool {
	in := *u.in
	for {
		buf := in[u.r:u.w]
		e := h1.HeadEnd(buf)
		if e == 0 {
			if len(buf) == len(in) || h1.HasBareLF(buf) {
				lp.handOffAnswer(c) // larger than the buffer, or lines ended by LF alone: net/http reads it
			}
			return false
		}
		sc := &lp.sc
		h := sortRespHead(buf[:e], c.method, sc.resp[:0])
		sc.resp = h.buf[:0]
		if h.generic {
			if _, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(buf[:e])), &http.Request{Method: c.method}); err != nil {
				lp.upFailed(u, err) // garbage: net/http's word for it, 502
				return false
			}
			lp.handOffAnswer(c) // one the lean forwarder reads with net/http
			return false
		}
		if h.status == http.StatusSwitchingProtocols {
			lp.upFailed(u, errUnsolicitedUpgrade)
			return false
		}
		if h.status < 200 {
			u.r += e // 100 Continue, 103 Early Hints: the final answer follows
			continue
		}
		c.tRead.Clear()
		c.tResp.Clear()
		c.state = clientAnswering
		w := sc.writer(sc.answering(c), c.stageHdr)
		w.rawHead(h.status, h.lines, h.hasDate, h.chunked)
		c.closeAfter = w.closeAfter
		u.r += e
		u.close, u.noBody, u.chunked, u.left, u.cl = h.close, w.noBody, h.chunked, h.cl, h.cl
		return true
	}
}

// answerDone ends an answer copied whole: u goes back to the idle pool,
// unless the next hop closes it or sent more than the answer.
func (lp *httpLoop) answerDone(c *loopClient, u *loopUp) {
	c.up, u.c = nil, nil
	if u.close || u.r < u.w {
		lp.closeUp(u)
	} else {
		lp.putIdle(u)
	}
	lp.finishAnswer(c, nil, c.closeAfter)
}

// cut ends an answer whose body the next hop ended early (err): counted
// and recorded, and the client's connection closes once what it was sent
// has gone, so that it sees an error rather than a short body.
func (lp *httpLoop) cut(c *loopClient, u *loopUp, err error) {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	got, of := u.chunks.data, ""
	if !u.chunked {
		got, of = u.cl-u.left, fmt.Sprintf(" of %d announced", u.cl)
	}
	lp.e.cfg.Cut(&exchange.Exchange{Conn: c.id, Req: c.reqID},
		fmt.Sprintf("the next hop ended the body after %d bytes%s (%v): the client's connection was aborted", got, of, err))
	lp.closeUp(u)
	c.up = nil
	if c.gone {
		return
	}
	c.state = clientClosing
	if len(c.pending) == 0 {
		lp.endClient(c)
	}
}
