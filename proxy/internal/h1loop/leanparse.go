package h1loop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/middlebench/middlebench/internal/h1"
)

// parse turns a whole head into request number id (0: the box's next),
// or errHandOff for anything the lean loop leaves to net/http.
func (lc *leanConn) parse(raw []byte, id uint64) (*http.Request, error) {
	h, vals := lc.headerFor()
	p, vals, err := parseHead(raw, h, vals)
	lc.vals = vals[:0]
	if err != nil {
		return nil, err
	}
	// r stays on the stack: WithContext below makes the one copy kept.
	r := http.Request{Method: p.method, URL: p.url, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: p.host,
		RequestURI: p.target, RemoteAddr: lc.remote, ContentLength: p.cl, Close: p.close, Body: http.NoBody}
	if id == 0 {
		id = lc.e.cfg.ReqSeq.Add(1)
	}
	lc.ctx = newLeanCtx(lc, id)
	if p.url == nil {
		lc.ctx.url = url.URL{Path: p.target}
		r.URL = &lc.ctx.url
	}
	if p.cl > 0 {
		lc.ctx.body = &leanBody{lc: lc, left: p.cl}
		r.Body = lc.ctx.body
	} else {
		lc.ctx.bodyDone = true
	}
	return r.WithContext(lc.ctx), nil
}

// requestHead is what parseHead takes from a request's head besides its
// header: the pieces are substrings of one string made of the head.
type requestHead struct {
	method, target, host string
	cl                   int64
	close                bool     // Connection: close
	url                  *url.URL // nil when the target is a plain path (plainPath): its URL is {Path: target}
}

// parseHead parses a whole head (up to its blank line) of the requests the
// lean paths take — HTTP/1.1 in origin-form, one valid Host, a
// Content-Length body or none, no Transfer-Encoding, Expect, Upgrade,
// Pragma or HTTP2-Settings — into h (empty) and the head's other pieces;
// both Content-Length and Transfer-Encoding is errConflictingFraming,
// anything else errHandOff. The values of distinct keys share vals'
// backing array, returned for the next head.
func parseHead(raw []byte, h http.Header, vals []string) (requestHead, []string, error) {
	var p requestHead
	s := string(raw) // one string: every key and value below is a piece of it
	line, rest, ok := h1.CutLine(s)
	if !ok {
		return p, vals, errHandOff
	}
	// ParseRequestLine refuses white space and control bytes in the target
	// and any version's spelling but HTTP/d.d; origin-form only.
	rl, ok := h1.ParseRequestLine(line)
	if !ok || rl.Major != 1 || rl.Minor != 1 || rl.Target[0] != '/' || rl.Method == "CONNECT" || rl.Method == "PRI" {
		return p, vals, errHandOff
	}
	method, target := rl.Method, rl.Target
	var (
		host   string
		hosts  int
		hasCL  bool
		closes bool // a Connection value lists close
		// handOff: a header the loop leaves to net/http; the scan goes on,
		// so that Content-Length and Transfer-Encoding together are seen
		// wherever they are.
		handOff, hasTE bool
	)
	for off := len(raw) - len(rest); len(raw)-off > 2; {
		f, ok := h1.CutField(raw[off:])
		if !ok {
			return p, vals, errHandOff // obs-fold, a space before the colon, a control byte, a bare LF …
		}
		name, value := s[off:off+f.Colon], s[off+f.ValueStart:off+f.ValueEnd]
		off += f.Next
		key := canonicalKey(name)
		switch key {
		case "Host":
			host, hosts = value, hosts+1
			continue
		case "Content-Length":
			if hasCL {
				handOff = true
			}
			v, ok := h1.ContentLength(value)
			if !ok {
				handOff = true
			}
			p.cl, hasCL = v, true
		case "Transfer-Encoding":
			hasTE, handOff = true, true
		case "Expect", "Upgrade", "Pragma", "Http2-Settings":
			handOff = true
		case "Connection":
			closes = closes || h1.HasToken(value, "close")
		}
		if vs, ok := h[key]; ok {
			h[key] = append(vs, value)
		} else { // one backing array for the values of distinct keys
			vals = append(vals, value)
			h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
	if hasTE && hasCL {
		return p, vals, errConflictingFraming
	}
	if handOff || hosts != 1 || !h1.IsHost(host) {
		return p, vals, errHandOff
	}
	if !plainPath(target) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return p, vals, errHandOff
		}
		p.url = u
	}
	p.method, p.target, p.host, p.close = method, target, host, closes
	return p, vals, nil
}

// errConflictingFraming: a request with both Content-Length and
// Transfer-Encoding, which RFC 9112 §6.1 calls a smuggling attempt: the box
// answers 400 and closes, as nginx does (net/http would forward it by its
// chunks and keep the connection, and a front proxy framing by
// Content-Length would desync).
var errConflictingFraming = errors.New("both Content-Length and Transfer-Encoding")

// headerFor is the connection's header map, emptied, and the backing
// array of its values (appended to: a value already in the map keeps the
// array it was cut from). Both are the previous request's: nothing keeps
// a request's header once it has been served (the loop serves one at a
// time; the values are pieces of the head's string, which stays), and a
// fresh map and array cost two allocations and a third of a request's
// bytes.
func (lc *leanConn) headerFor() (http.Header, []string) {
	if lc.header == nil {
		lc.header = make(http.Header, 8)
		lc.vals = make([]string, 0, 8)
	} else {
		clear(lc.header)
	}
	return lc.header, lc.vals[:0]
}

// peekHead waits until br holds a whole head, up to its blank line, and
// returns it still in the buffer. whole is false for a head the lean path
// leaves to net/http: larger than the buffer, or lines ended by LF alone.
// With arm, the read deadline is set through it once, before the first
// wait for bytes: a head that came whole with its first read needs none.
func peekHead(br *bufio.Reader, arm func()) (head []byte, whole bool, err error) {
	armed := false
	for {
		buf, _ := br.Peek(br.Buffered())
		if n := h1.HeadEnd(buf); n > 0 {
			return buf[:n], true, nil
		}
		if br.Buffered() == br.Size() || h1.HasBareLF(buf) {
			return nil, false, nil
		}
		if arm != nil && !armed {
			arm()
			armed = true
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			return nil, false, err
		}
	}
}

// commonKeys are header names already canonical, looked up without
// allocating (textproto keeps such a table too).
var commonKeys = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Connection",
		"Content-Length", "Content-Type", "Cookie", "Authorization", "Cache-Control", "Origin", "Referer",
		"Transfer-Encoding", "Expect", "Upgrade", "Pragma", "Http2-Settings", "Keep-Alive", "Te", "Trailer",
		"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "X-Request-Id", "K6-Test"} {
		m[k] = k
		m[strings.ToLower(k)] = k
	}
	return m
}()

func canonicalKey(name string) string {
	switch name { // the commonest, compared whole (a string switch searches by length)
	case "Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Length",
		"Content-Type", "Cookie", "Authorization", "Cache-Control", "Origin", "Referer", "X-Request-Id", "K6-Test":
		return name
	}
	if isCanonical(name) {
		return name // what CanonicalHeaderKey returns, without its checks
	}
	if k, ok := commonKeys[name]; ok {
		return k
	}
	return http.CanonicalHeaderKey(name)
}

// isCanonical: a valid token already in canonical form (upper case at the
// start and after each '-', lower case elsewhere).
func isCanonical(name string) bool {
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			return false
		}
		upper = c == '-'
	}
	return true
}

// plainPath: target is a path of bytes that url.ParseRequestURI keeps as
// they are — letters, digits and -._~$&+,/:;=@ after the leading slash, no
// query, no escapes — so that its URL is just {Path: target} (one
// allocation fewer per request than the parser's).
func plainPath(target string) bool {
	if len(target) == 0 || target[0] != '/' {
		return false
	}
	for i := 1; i < len(target); i++ {
		switch c := target[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~$&+,/:;=@", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// leanBody is a Content-Length request body read from the connection.
type leanBody struct {
	lc     *leanConn
	left   int64
	err    error
	closed bool
}

func (b *leanBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.lc.br.Read(p)
	b.left -= int64(n)
	if b.left == 0 {
		b.err = io.EOF
		b.lc.ctx.bodyEOF()
		return n, nil
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

func (b *leanBody) Close() error {
	b.closed = true
	return nil
}

// String names the body in errors (net/http's body says "http: …").
func (b *leanBody) String() string { return fmt.Sprintf("lean body, %d bytes left", b.left) }
