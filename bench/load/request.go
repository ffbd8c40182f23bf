package load

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
)

func contextWithTrace(ctx context.Context, t *tracer) context.Context {
	return httptrace.WithClientTrace(ctx, t.trace)
}

// newRequest prepares the target's request bound to ctx. Requests without
// a body are reused as they are (net/http allows it once the response body
// is closed); a body is attached per request (see withBody).
func (t *target) newRequest(ctx context.Context) *http.Request {
	r := &http.Request{
		Method:     t.method,
		URL:        t.u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     t.header,
		Host:       t.u.Host,
	}
	if h := t.header.Get("Host"); h != "" {
		r.Host = h
	}
	return r.WithContext(ctx)
}

func (v *vu) withBody(r *http.Request, n int64) *http.Request {
	c := new(http.Request)
	*c = *r
	block := v.e.bodyBlock
	c.Body = newSizedBody(block, n)
	c.ContentLength = n
	c.GetBody = func() (io.ReadCloser, error) { return newSizedBody(block, n), nil }
	return c
}

// request sends one request of the mix and reads its body, recording every
// hop of a redirect chain as its own request, as k6 does. It reports false
// when ctx ended it (the iteration is interrupted).
func (v *vu) request(ctx context.Context, t *target) bool {
	v.bind(ctx)
	req := v.reqs[t.idx]
	if t.bodySize > 0 {
		req = v.withBody(req, t.bodySize)
	}
	for hop := 0; ; hop++ {
		resp, ok := v.roundTrip(ctx, t, req)
		if !ok {
			return false
		}
		if resp == nil || hop >= v.e.cfg.maxRedirects() {
			return true
		}
		next := v.redirect(req, resp)
		if next == nil {
			return true
		}
		req = next
	}
}

// roundTrip does one exchange and records it. It returns the response
// (body already read and closed) when a redirect may follow.
func (v *vu) roundTrip(ctx context.Context, t *target, req *http.Request) (*http.Response, bool) {
	var debugID string
	if v.e.debug != nil {
		debugID = v.debugRequest(req)
	}
	v.trc.reset()
	v.timer.Reset(v.e.cfg.timeout())
	resp, err := v.tr.RoundTrip(req)
	var r record
	r.kind, r.target = kindRequest, uint16(t.idx)
	if err == nil {
		r.status = uint16(resp.StatusCode)
		r.proto = uint8(resp.ProtoMajor*10 + resp.ProtoMinor)
		if resp.TLS != nil {
			r.tlsVersion = resp.TLS.Version
		}
		if ms, ok := serverTiming(resp.Header["Server-Timing"], v.e.serverMetric); ok {
			r.hasServer, r.server = true, int64(ms*1e6+0.5)
		}
		if ms, ok := serverTiming(resp.Header["Server-Timing"], serverQueueTiming); ok {
			r.hasQueue, r.queue = true, int64(ms*1e6+0.5)
		}
		if v.e.debug != nil {
			body := v.debugResponse(resp, debugID)
			err = v.readBody(resp)
			v.debugBody(body, debugID)
		} else {
			err = v.readBody(resp)
		}
	}
	end := v.e.clk.now()
	timedOut := !v.timer.Stop()
	if timedOut {
		<-v.fired
		v.reqCtx = nil // cancelled: rebuild before the next request
	}
	r.end = end
	r.ph = v.trc.done(end)
	if err != nil {
		if ctx.Err() != nil {
			v.invalidate()
			return nil, false
		}
		if timedOut {
			err = fmt.Errorf("%w: %w", errTimeout, err)
		}
		v.recordError(&r, err)
		v.invalidate()
		resp = nil
	} else if !r.ph.wrote {
		v.invalidate() // WroteRequest may still come: keep it off the next request's tracer
	}
	r.failed = r.status < 200 || r.status > 399
	if r.code == 0 && r.status >= 400 {
		r.code = 1000 + r.status
	}
	v.em.emit(&r)
	v.observe(&r)
	v.ctr.requests.Add(1)
	if r.failed {
		v.ctr.failed.Add(1)
	}
	return resp, true
}

func (v *vu) recordError(r *record, err error) {
	r.status, r.proto, r.tlsVersion, r.hasServer, r.hasQueue = 0, 0, 0, false, false
	r.code, r.class = classify(err)
	if _, seen := v.firstErr[r.code]; !seen && len(v.firstErr) < 32 {
		v.firstErr[r.code] = err.Error()
	}
}

// readBody reads the body to its end (through gzip when the engine asked
// for compression and the server used it) and closes it.
func (v *vu) readBody(resp *http.Response) error {
	var body io.Reader = resp.Body
	if v.e.cfg.Compress && hasGzip(resp.Header["Content-Encoding"]) {
		gz, err := v.gunzip(resp.Body)
		if err != nil {
			resp.Body.Close()
			return err
		}
		body = gz
	}
	for {
		_, err := body.Read(v.buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			resp.Body.Close()
			if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
				return fmt.Errorf("%w: %w", errDecompress, err)
			}
			return err
		}
	}
	return resp.Body.Close()
}

func hasGzip(values []string) bool {
	for _, v := range values {
		if strings.Contains(strings.ToLower(v), "gzip") {
			return true
		}
	}
	return false
}

func (v *vu) gunzip(r io.Reader) (io.Reader, error) {
	var err error
	if v.gz == nil {
		v.gz, err = gzip.NewReader(r)
	} else {
		err = v.gz.Reset(r)
	}
	if err != nil {
		if errors.Is(err, gzip.ErrHeader) {
			return nil, fmt.Errorf("%w: %w", errDecompress, err)
		}
		return nil, err
	}
	return v.gz, nil
}

// redirect returns the next hop's request, or nil when resp is not a
// redirect to follow. 301/302/303 turn into a GET without body, 307/308
// keep the method and body (as net/http's client does).
func (v *vu) redirect(req *http.Request, resp *http.Response) *http.Request {
	switch resp.StatusCode {
	case 301, 302, 303, 307, 308:
	default:
		return nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" || v.reqCtx == nil {
		return nil
	}
	u, err := req.URL.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil
	}
	method, body := req.Method, req.GetBody
	if resp.StatusCode <= 303 && method != http.MethodHead {
		method, body = http.MethodGet, nil
	}
	next, err := http.NewRequestWithContext(v.reqCtx, method, u.String(), nil)
	if err != nil {
		return nil
	}
	for k, vs := range req.Header {
		next.Header[k] = vs
	}
	if body != nil {
		b, err := body()
		if err != nil {
			return nil
		}
		next.Body, next.GetBody, next.ContentLength = b, body, req.ContentLength
	}
	return next
}
