package load

import (
	"crypto/tls"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// clock reads monotonic nanoseconds since the run's base time. A reading is
// never 0, so 0 can mean "hook not called".
type clock struct{ base time.Time }

func (c clock) now() int64 {
	if d := int64(time.Since(c.base)); d > 0 {
		return d
	}
	return 1
}

// tracer collects one request's httptrace timestamps. The hooks follow k6's
// lib/netext/httpext/tracer.go rule for rule (atomics because net/http may
// call a hook after RoundTrip has returned, for cancelled requests):
//   - GetConn and GotConn overwrite; ConnectStart/Done and TLSHandshakeStart/
//     Done keep the first successful call (dual-stack dialing calls them
//     more than once);
//   - on a reused connection GotConn sets connect and TLS stamps to its own
//     time, so connecting and tls are 0; on a new one it fills any stamp
//     still unset (HTTP/2 can report a reused connection as new);
//   - WroteRequest keeps the last successful write (retries);
//     GotFirstResponseByte the first byte, even of a 1xx response.
type tracer struct {
	clk                      clock
	getConn, gotConn         atomic.Int64
	connectStart, connectEnd atomic.Int64
	tlsStart, tlsEnd         atomic.Int64
	wrote, firstByte         atomic.Int64
	reused                   atomic.Bool
	trace                    *httptrace.ClientTrace
}

func newTracer(clk clock) *tracer {
	t := &tracer{clk: clk}
	t.trace = &httptrace.ClientTrace{
		GetConn:              t.onGetConn,
		ConnectStart:         t.onConnectStart,
		ConnectDone:          t.onConnectDone,
		TLSHandshakeStart:    t.onTLSStart,
		TLSHandshakeDone:     t.onTLSDone,
		GotConn:              t.onGotConn,
		WroteRequest:         t.onWroteRequest,
		GotFirstResponseByte: t.onFirstByte,
	}
	return t
}

func (t *tracer) reset() {
	for _, a := range []*atomic.Int64{&t.getConn, &t.gotConn, &t.connectStart, &t.connectEnd, &t.tlsStart, &t.tlsEnd, &t.wrote, &t.firstByte} {
		a.Store(0)
	}
	t.reused.Store(false)
}

// retry forgets an attempt on a dead keep-alive connection but its
// GetConn (the lean client's retry, h1client.exchange).
func (t *tracer) retry() {
	getConn := t.getConn.Load()
	t.reset()
	t.getConn.Store(getConn)
}

func (t *tracer) onGetConn(string)              { t.getConn.Store(t.clk.now()) }
func (t *tracer) onConnectStart(string, string) { t.connectStart.CompareAndSwap(0, t.clk.now()) }
func (t *tracer) onTLSStart()                   { t.tlsStart.CompareAndSwap(0, t.clk.now()) }
func (t *tracer) onFirstByte()                  { t.firstByte.CompareAndSwap(0, t.clk.now()) }

func (t *tracer) onConnectDone(_, _ string, err error) {
	if err == nil { // a failed dial is either a lost happy-eyeballs race or the request's error
		t.connectEnd.CompareAndSwap(0, t.clk.now())
	}
}

func (t *tracer) onTLSDone(_ tls.ConnectionState, err error) {
	if err == nil {
		t.tlsEnd.CompareAndSwap(0, t.clk.now())
	}
}

func (t *tracer) onGotConn(info httptrace.GotConnInfo) {
	now := t.clk.now()
	t.gotConn.Store(now)
	t.reused.Store(info.Reused)
	_, isTLS := info.Conn.(*tls.Conn)
	if info.Reused {
		t.connectStart.Store(now)
		t.connectEnd.Store(now)
		if isTLS {
			t.tlsStart.Store(now)
			t.tlsEnd.Store(now)
		}
		return
	}
	t.connectStart.CompareAndSwap(0, now)
	t.connectEnd.CompareAndSwap(0, now)
	if isTLS {
		t.tlsStart.CompareAndSwap(0, now)
		t.tlsEnd.CompareAndSwap(0, now)
	}
}

func (t *tracer) onWroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		t.wrote.Store(t.clk.now())
	}
}

// phases are one request's k6 timings in nanoseconds.
type phases struct {
	blocked, connecting, tls         int64
	sending, waiting, receiving, dur int64
	// wall is measured apart from the phases: from the start of sending to
	// the end, on the same clock. When the server answers after the request
	// is written, wall == dur to the nanosecond; it differs when a phase was
	// lost or overlapped (a response that starts before the upload ends).
	wall   int64
	wrote  bool // the request was fully written
	reused bool
}

// done computes the phases at end (the body fully read), as k6's
// Tracer.Done does: blocked = GetConn→GotConn; connecting and tls from their
// stamps; sending from TLS-done (else connect-done, else GotConn) to
// WroteRequest; waiting from WroteRequest to the first byte, 0 if the first
// byte came before the request was written, and up to end if no byte came;
// receiving from the first byte to end; duration = sending+waiting+receiving.
func (t *tracer) done(end int64) phases {
	var p phases
	getConn, gotConn := t.getConn.Load(), t.gotConn.Load()
	cs, ce := t.connectStart.Load(), t.connectEnd.Load()
	ts, te := t.tlsStart.Load(), t.tlsEnd.Load()
	wrote, first := t.wrote.Load(), t.firstByte.Load()
	p.reused = t.reused.Load()
	if gotConn != 0 && getConn != 0 && gotConn > getConn {
		p.blocked = gotConn - getConn
	}
	if cs != 0 && ce != 0 {
		p.connecting = ce - cs
	}
	if ts != 0 && te != 0 {
		p.tls = te - ts
	}
	if wrote != 0 {
		p.wrote = true
		sendStart := gotConn
		switch {
		case te != 0:
			sendStart = te
		case ce != 0:
			sendStart = ce
		}
		p.sending = wrote - sendStart
		if first != 0 {
			if first > wrote {
				p.waiting = first - wrote
			}
		} else {
			p.waiting = end - wrote
		}
		p.wall = end - sendStart
	}
	if first != 0 {
		p.receiving = end - first
	}
	p.dur = p.sending + p.waiting + p.receiving
	if wrote == 0 {
		p.wall = p.dur
	}
	return p
}
