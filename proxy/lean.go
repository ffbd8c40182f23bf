package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The lean HTTP/1.1 loop serves a plain-HTTP box's connections without
// net/http's server: per client connection one goroutine reads each request
// head into a reused buffer, builds the *http.Request the stages expect
// (HTTPStage's interface is unchanged), runs the same handler chain, and the
// lean forwarder (leanforward.go) writes the request to an upstream
// keep-alive connection and copies the answer back. Profiles of net/http's
// path put the time in its per-request machinery: the background read
// goroutine started for every request, contexts, header maps cloned by
// ReverseProxy, the Transport's request and response rewriting.
//
// The loop takes only what it parses in full: an HTTP/1.1 request in
// origin-form whose head fits its 4 KiB buffer, with a single Host, a
// Content-Length body or none, and no Expect, Upgrade, Transfer-Encoding or
// Pragma. Anything else — another version, chunked or malformed requests,
// oversized heads, CONNECT, OPTIONS *, WebSocket — hands the connection, with
// the bytes already read, to the box's net/http server, which answers it as
// before (400, 431, 501, 505, 100-continue, 417 …) and keeps it. Its header
// timeouts start from the lean loop's, so a handed-over client gets no
// extra time.

// leanBufSize is the lean loop's read and write buffer per connection:
// net/http's 4 KiB, so memory per idle connection is what it was.
const leanBufSize = 4 << 10

// maxPostHandlerRead: a request body the handler left unread is drained up
// to this much so that the connection can be reused (net/http's
// maxPostHandlerReadBytes); more, and the connection closes after the reply.
const maxPostHandlerRead = 256 << 10

// rstAvoidanceDelay: closing with unread request bytes would reset the
// connection, losing the reply; the write side closes first and the close
// waits this long (net/http's value).
const rstAvoidanceDelay = 500 * time.Millisecond

// watchAfter: how long a request may wait for the next hop before the loop
// starts watching the client's connection for its end (net/http watches
// from the start of every request, a goroutine and a read each time).
// One ticker per box finds such requests (see waitList).
const watchAfter = time.Millisecond

// waitList holds a box's lean requests waiting for the next hop; one
// goroutine ticking every watchAfter starts the client watch of those
// waiting longer. A timer per request would be the earliest of the
// process's timers each time it is armed, and each arming would wake the
// runtime's poller to learn it (a system call and a thread woken per
// request); the ticker runs while requests come, and stops after a second
// without any.
type waitList struct {
	mu      sync.Mutex
	waiting map[*leanCtx]time.Time
	running bool
	done    chan struct{} // closed with the box
	wg      *sync.WaitGroup
}

func (l *waitList) add(ctx *leanCtx) {
	l.mu.Lock()
	if l.waiting == nil {
		l.waiting = map[*leanCtx]time.Time{}
	}
	l.waiting[ctx] = time.Now()
	if !l.running {
		select {
		case <-l.done:
		default:
			l.running = true
			l.wg.Add(1) // the caller's connection holds the box's group above zero
			go l.tick()
		}
	}
	l.mu.Unlock()
}

func (l *waitList) remove(ctx *leanCtx) {
	l.mu.Lock()
	delete(l.waiting, ctx)
	l.mu.Unlock()
}

func (l *waitList) tick() {
	defer l.wg.Done()
	t := time.NewTicker(watchAfter)
	defer t.Stop()
	var idleSince time.Time
	var due []*leanCtx
	for {
		select {
		case <-l.done:
			l.mu.Lock()
			l.running = false
			l.mu.Unlock()
			return
		case <-t.C:
		}
		now := time.Now()
		due = due[:0]
		l.mu.Lock()
		for ctx, since := range l.waiting {
			if now.Sub(since) >= watchAfter {
				due = append(due, ctx)
				delete(l.waiting, ctx)
			}
		}
		if len(l.waiting) > 0 || len(due) > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = now
		} else if now.Sub(idleSince) > time.Second {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		for _, ctx := range due {
			ctx.watch() // a request over meanwhile has its context ended: no watch starts
		}
	}
}

var leanReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, leanBufSize) }}
var leanWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, leanBufSize) }}

// leanable reports whether an HTTP box can run the lean loop: it does not
// terminate TLS (its connections would need ALPN and HTTP/2), and its next
// hop has no path of its own to join.
func (b *Box) leanable() bool {
	return b.lay.certs == nil && (b.next.Path == "" || b.next.Path == "/") && b.next.RawQuery == ""
}

// handoffListener hands connections from the lean loop to net/http's server.
type handoffListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newHandoffListener(addr net.Addr) *handoffListener {
	return &handoffListener{addr: addr, ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// give passes c to the server; false when the box is closing.
func (l *handoffListener) give(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

// handoffConn is a connection given to net/http: it reads first what the
// lean loop had buffered, and moves the first two read deadlines net/http
// sets (the request's header and whole-request deadlines, counted from
// its own start) back to the lean loop's start.
type handoffConn struct {
	net.Conn
	r      io.Reader
	shift  time.Duration
	shifts int
}

func (c *handoffConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *handoffConn) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && c.shifts < 2 {
		c.shifts++
		t = t.Add(-c.shift)
	}
	return c.Conn.SetReadDeadline(t)
}

// NetConn returns the connection under it, for connID and abortConn.
func (c *handoffConn) NetConn() net.Conn { return c.Conn }

// leanConn is one client connection on the lean loop.
type leanConn struct {
	b      *Box
	c      net.Conn
	cr     connReader
	br     *bufio.Reader
	bw     *bufio.Writer
	id     uint64
	remote string
	head   []byte      // the upstream request head, rebuilt for each request
	resp   []byte      // the answer's header lines passed on
	ctx    *leanCtx    // the request being served
	w      *leanWriter // … and its writer
}

// serveLean runs the lean loop on one accepted connection.
func (b *Box) serveLean(c net.Conn) {
	defer b.wg.Done()
	lc := &leanConn{b: b, c: c, id: connID(c), remote: c.RemoteAddr().String()}
	lc.cr.init(c)
	lc.br = leanReaders.Get().(*bufio.Reader)
	lc.br.Reset(&lc.cr)
	lc.bw = leanWriters.Get().(*bufio.Writer)
	lc.bw.Reset(c)
	keep := lc.loop()
	b.untrack(c)
	if keep {
		return // handed to net/http, buffers and all
	}
	c.Close()
	lc.bw.Reset(nil)
	leanWriters.Put(lc.bw)
	lc.br.Reset(nil)
	leanReaders.Put(lc.br)
}

// loop serves requests until the connection ends; true when it was handed
// to net/http instead.
func (lc *leanConn) loop() (handedOff bool) {
	b := lc.b
	for first := true; ; first = false {
		if !first {
			_ = lc.c.SetReadDeadline(time.Now().Add(idleTimeoutClient))
			if _, err := lc.br.Peek(1); err != nil {
				return false
			}
		}
		t0 := time.Now()
		req, n, ok, err := lc.readRequest(t0)
		if err != nil {
			return false // EOF, reset or timeout before a whole head: no answer, as net/http
		}
		if !ok {
			return lc.handOff(time.Since(t0))
		}
		_, _ = lc.br.Discard(n)
		// The whole-request deadline, for what reads the client from here
		// on: the body, or the watch (which sets it itself when it starts).
		lc.cr.setDeadline(t0.Add(b.limits.ReadTimeout.D()))
		if req.ContentLength > 0 {
			_ = lc.c.SetReadDeadline(t0.Add(b.limits.ReadTimeout.D()))
		}
		if !lc.serve(req) {
			return false
		}
	}
}

// idleTimeoutClient is how long a client connection may sit idle between
// requests (the net/http server's IdleTimeout in startHTTP).
const idleTimeoutClient = 2 * time.Minute

// handOff gives the connection to net/http; false when the box closes.
func (lc *leanConn) handOff(elapsed time.Duration) bool {
	hc := &handoffConn{Conn: lc.c, r: lc.br, shift: elapsed}
	if !lc.b.handoff.give(hc) {
		return false
	}
	return true
}

// serve runs one request through the stages and the forwarder; false when
// the connection must close (or was taken by a stage).
func (lc *leanConn) serve(r *http.Request) (keep bool) {
	b := lc.b
	ctx := lc.ctx
	w := newLeanWriter(lc, r)
	lc.w = w
	defer func() {
		lc.w = nil
		ctx.cancel() // first: no watch starts after it
		lc.cr.abortPendingRead()
		if v := recover(); v != nil {
			keep = false
			if v != http.ErrAbortHandler {
				buf := make([]byte, 64<<10)
				buf = buf[:runtime.Stack(buf, false)]
				b.log.Printf("http: panic serving %v: %v\n%s", lc.remote, v, buf)
			}
			if !w.hijacked {
				_ = lc.bw.Flush()
			}
		}
	}()
	b.handle(w, r, ctx.ex)
	if w.hijacked {
		return false
	}
	w.finish()
	if w.err != nil || ctx.Err() != nil {
		return false
	}
	if w.closeAfter {
		if w.unreadBody {
			closeWrite(lc.c)
			time.Sleep(rstAvoidanceDelay)
		}
		return false
	}
	return true
}

// errHandOff: the request is one the lean loop does not take.
var errHandOff = errors.New("hand off")

// readRequest reads a request head; ok false means: hand the connection
// over (nothing consumed). n is the head's length in the buffer. The
// header deadline (readHeaderTimeout from t0) is set before the first wait
// for bytes: a head that came whole with its first read needs none.
func (lc *leanConn) readRequest(t0 time.Time) (req *http.Request, n int, ok bool, err error) {
	var head []byte
	br := lc.br
	armed := false
	if br.Buffered() == 0 {
		_ = lc.c.SetReadDeadline(t0.Add(lc.b.limits.ReadHeaderTimeout.D()))
		armed = true
		if _, err := br.Peek(1); err != nil {
			return nil, 0, false, err
		}
	}
	for {
		buf, _ := br.Peek(br.Buffered())
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			head = buf[:i+4]
			break
		}
		if br.Buffered() == br.Size() || bareLF(buf) {
			return nil, 0, false, nil // a head larger than the buffer, or lines ended by LF alone: net/http's rules apply
		}
		if !armed {
			_ = lc.c.SetReadDeadline(t0.Add(lc.b.limits.ReadHeaderTimeout.D()))
			armed = true
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			return nil, 0, false, err // a partial head, then EOF, a reset or the timeout: no answer, as net/http
		}
	}
	req, err = lc.parse(head)
	if err != nil {
		return nil, 0, false, nil
	}
	return req, len(head), true, nil
}

// parse turns a whole head into a request, or errHandOff for anything the
// lean loop leaves to net/http.
func (lc *leanConn) parse(raw []byte) (*http.Request, error) {
	s := string(raw) // one string: every key and value below is a piece of it
	line, rest, _ := strings.Cut(s, "\r\n")
	method, line, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(line, " ")
	if !ok1 || !ok2 || proto != "HTTP/1.1" || !validToken(method) || method == "CONNECT" || method == "PRI" ||
		len(target) == 0 || target[0] != '/' || strings.ContainsAny(target, " \t") {
		return nil, errHandOff
	}
	var (
		host    string
		hosts   int
		cl      int64
		hasCL   bool
		conn    string
		nvalues int
	)
	for l := rest; len(l) > 2; {
		i := strings.Index(l, "\r\n")
		l = l[i+2:]
		nvalues++
	}
	h := make(http.Header, nvalues)
	vals := make([]string, 0, nvalues)
	for len(rest) > 2 {
		var hl string
		hl, rest, _ = strings.Cut(rest, "\r\n")
		name, value, ok := strings.Cut(hl, ":")
		if !ok || !validToken(name) || !validValue(value) {
			return nil, errHandOff // obs-fold, a bare LF, a space before the colon, a control byte …
		}
		value = strings.Trim(value, " \t")
		key := canonicalKey(name)
		switch key {
		case "Host":
			host, hosts = value, hosts+1
			continue
		case "Content-Length":
			if hasCL {
				return nil, errHandOff
			}
			v, err := strconv.ParseUint(value, 10, 63)
			if err != nil || value == "" || value[0] == '+' {
				return nil, errHandOff
			}
			cl, hasCL = int64(v), true
		case "Transfer-Encoding", "Expect", "Upgrade", "Pragma", "Http2-Settings":
			return nil, errHandOff
		case "Connection":
			conn += "," + value
		}
		if vs, ok := h[key]; ok {
			h[key] = append(vs, value)
		} else { // one backing array for the values of distinct keys
			vals = append(vals, value)
			h[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		}
	}
	if hosts != 1 || !validHost(host) {
		return nil, errHandOff
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, errHandOff
	}
	closeReq := headerHasToken(conn, "close")
	r := &http.Request{Method: method, URL: u, Proto: proto, ProtoMajor: 1, ProtoMinor: 1, Header: h, Host: host,
		RequestURI: target, RemoteAddr: lc.remote, ContentLength: cl, Close: closeReq, Body: http.NoBody}
	ex := &exchange{conn: lc.id, req: lc.b.reqSeq.Add(1)}
	lc.ctx = newLeanCtx(lc, ex)
	if cl > 0 {
		lc.ctx.body = &leanBody{lc: lc, left: cl}
		r.Body = lc.ctx.body
	} else {
		lc.ctx.bodyDone = true
	}
	return r.WithContext(lc.ctx), nil
}

// bareLF reports whether b has a line ended by LF alone (net/http reads
// such heads; the lean loop leaves them to it).
func bareLF(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

// headerHasToken reports whether a comma-separated header value lists tok.
func headerHasToken(v, tok string) bool {
	for v != "" {
		var t string
		t, v, _ = strings.Cut(v, ",")
		if strings.EqualFold(strings.Trim(t, " \t"), tok) {
			return true
		}
	}
	return false
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
	if k, ok := commonKeys[name]; ok {
		return k
	}
	return http.CanonicalHeaderKey(name)
}

// validToken: RFC 9110 token characters (method, header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// validValue: no control byte but tab, no DEL (a bare CR or LF is one).
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validHost: the characters of a host[:port] (net/http checks these too).
func validHost(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~:[]%!$&'()*+,;=", c) >= 0 {
			continue
		}
		return false
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
