package load

import (
	"context"
)

// requestH1 is request through the VU's lean client (h1client): the same
// records, phases and redirect chain as through net/http. A hop the lean
// client cannot send (another address, https) continues the chain through
// net/http.
func (v *vu) requestH1(ctx context.Context, t *target) bool {
	method, u, head := t.method, t.u, t.h1head
	for hop := 0; ; hop++ {
		status, loc, ok := v.exchangeH1(ctx, t, method, head)
		if !ok {
			return false
		}
		if status == 0 || hop >= v.e.cfg.maxRedirects() {
			return true
		}
		next, nu, _, follow := redirectTo(method, u, status, loc)
		if !follow || v.reqCtx == nil {
			return true
		}
		method, u = next, nu
		var lean bool
		if head, lean = renderHead(method, u, u.Host, t.header, v.e.cfg.NoConnectionReuse); !lean || h1Addr(u) != v.h1.addr {
			req := v.hopRequest(method, u, t.header)
			if req == nil {
				return true
			}
			return v.follow(ctx, t, req, hop+1)
		}
	}
}

// exchangeH1 is roundTrip through the lean client. It returns the status
// and Location of a response read whole (status 0 after an error).
func (v *vu) exchangeH1(ctx context.Context, t *target, method string, head []byte) (status int, location string, ok bool) {
	v.trc.reset()
	v.timer.Reset(v.e.cfg.timeout())
	h, body, err := v.h1.exchange(v.reqCtx, v.trc, method, head)
	var r record
	r.kind, r.target = kindRequest, uint16(t.idx)
	if err == nil {
		v.noteResponse(&r, h.status, h.proto, h.serverTiming)
		status, location = h.status, h.location
		err = v.drain(body, v.e.cfg.Compress && h.gzip)
	}
	v.h1.release(err == nil)
	if !v.finish(ctx, &r, err) {
		return 0, "", false
	}
	if err != nil {
		return 0, "", true
	}
	return status, location, true
}
