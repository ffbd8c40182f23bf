package load

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
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

// withBody returns r with t's body attached (generatedBody): read-only
// bytes shared by every request of the target, each read through its own
// reader.
func withBody(r *http.Request, t *target) *http.Request {
	c := new(http.Request)
	*c = *r
	c.Body, _ = t.getBody()
	c.ContentLength = int64(len(t.body))
	c.GetBody = t.getBody
	return c
}

// request sends one request of the mix and reads its body, recording every
// hop of a redirect chain as its own request, as k6 does. It reports false
// when ctx ended it (the iteration is interrupted).
func (v *vu) request(ctx context.Context, t *target) bool {
	v.bind(ctx)
	if v.h1 != nil {
		return v.requestH1(ctx, t)
	}
	req := v.reqs[t.idx]
	if t.body != nil {
		req = withBody(req, t)
	}
	return v.follow(ctx, t, req, 0)
}

// follow sends req, hop hop of a redirect chain, through net/http and
// follows its redirects.
func (v *vu) follow(ctx context.Context, t *target, req *http.Request, hop int) bool {
	for ; ; hop++ {
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

// roundTrip does one exchange through net/http and records it. It returns
// the response (body already read and closed) when a redirect may follow.
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
		v.noteResponse(&r, resp.StatusCode, uint8(resp.ProtoMajor*10+resp.ProtoMinor), resp.Header["Server-Timing"])
		if resp.TLS != nil {
			r.tlsVersion = resp.TLS.Version
		}
		if v.e.debug != nil {
			body := v.debugResponse(resp, debugID)
			err = v.readBody(resp)
			v.debugBody(body, debugID)
		} else {
			err = v.readBody(resp)
		}
	}
	if !v.finish(ctx, &r, err) {
		return nil, false
	}
	if err != nil {
		resp = nil
	}
	return resp, true
}

// noteResponse records a response head's status, protocol and
// Server-Timing entries.
func (v *vu) noteResponse(r *record, status int, proto uint8, serverTimings []string) {
	r.status, r.proto = uint16(status), proto
	if ms, ok := serverTiming(serverTimings, v.e.serverMetric); ok {
		r.hasServer, r.server = true, int64(ms*1e6+0.5)
	}
	if ms, ok := serverTiming(serverTimings, serverQueueTiming); ok {
		r.hasQueue, r.queue = true, int64(ms*1e6+0.5)
	}
}

// finish ends a request (err: how it failed): it stops the timeout, takes
// the phases at this moment (the body read), classifies an error and
// hands the record over. It reports false when ctx ended the request,
// which is then not recorded (the iteration is interrupted).
func (v *vu) finish(ctx context.Context, r *record, err error) bool {
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
			return false
		}
		if timedOut {
			err = fmt.Errorf("%w: %w", errTimeout, err)
		}
		v.recordError(r, err)
		v.invalidate()
	} else if !r.ph.wrote {
		v.invalidate() // WroteRequest may still come: keep it off the next request's tracer
	}
	r.failed = r.status < 200 || r.status > 399
	if r.code == 0 && r.status >= 400 {
		r.code = 1000 + r.status
	}
	v.em.emit(r)
	v.observe(r)
	v.ctr.requests.Add(1)
	if r.failed {
		v.ctr.failed.Add(1)
	}
	return true
}

func (v *vu) recordError(r *record, err error) {
	r.status, r.proto, r.tlsVersion, r.hasServer, r.hasQueue = 0, 0, 0, false, false
	r.code, r.class = classify(err)
	if _, seen := v.firstErr[r.code]; !seen && len(v.firstErr) < 32 {
		v.firstErr[r.code] = err.Error()
	}
}

// readBody reads the body to its end (drain) and closes it.
func (v *vu) readBody(resp *http.Response) error {
	err := v.drain(resp.Body, v.e.cfg.Compress && hasGzip(resp.Header["Content-Encoding"]))
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return err
}

// drain reads body to its end, through gzip when the engine asked for
// compression and the server used it (gz).
func (v *vu) drain(body io.Reader, gz bool) error {
	if gz {
		r, err := v.gunzip(body)
		if err != nil {
			return err
		}
		body = r
	}
	for {
		_, err := body.Read(v.buf)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
				return fmt.Errorf("%w: %w", errDecompress, err)
			}
			return err
		}
	}
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

// redirectTo returns the method and URL of the hop that follows a
// response with status and Location loc to a method request for base; ok
// is false when there is none to follow. 301/302/303 turn into a GET
// without body (keepBody false), 307/308 keep the method and body, as
// net/http's client does.
func redirectTo(method string, base *url.URL, status int, loc string) (next string, u *url.URL, keepBody, ok bool) {
	switch status {
	case 301, 302, 303, 307, 308:
	default:
		return "", nil, false, false
	}
	if loc == "" {
		return "", nil, false, false
	}
	u, err := base.Parse(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", nil, false, false
	}
	if status <= 303 && method != http.MethodHead {
		return http.MethodGet, u, false, true
	}
	return method, u, true, true
}

// redirect returns the next hop's request, or nil when resp is not a
// redirect to follow (redirectTo).
func (v *vu) redirect(req *http.Request, resp *http.Response) *http.Request {
	method, u, keepBody, ok := redirectTo(req.Method, req.URL, resp.StatusCode, resp.Header.Get("Location"))
	if !ok || v.reqCtx == nil {
		return nil
	}
	next := v.hopRequest(method, u, req.Header)
	if next == nil || !keepBody || req.GetBody == nil {
		return next
	}
	b, err := req.GetBody()
	if err != nil {
		return nil
	}
	next.Body, next.GetBody, next.ContentLength = b, req.GetBody, req.ContentLength
	return next
}

// hopRequest is a redirect hop's request for net/http, with the headers
// of the chain's first request.
func (v *vu) hopRequest(method string, u *url.URL, header http.Header) *http.Request {
	next, err := http.NewRequestWithContext(v.reqCtx, method, u.String(), nil)
	if err != nil {
		return nil
	}
	for k, vs := range header {
		next.Header[k] = vs
	}
	return next
}
