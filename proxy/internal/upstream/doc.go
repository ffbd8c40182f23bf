// Package upstream is an HTTP box's keep-alive connections to its next hop
// and the transport that forwards a request over one on the caller's own
// goroutine: take an idle connection or dial, write the request, read the
// response head; the body gives the connection back at its end.
//
//	handler ─RoundTrip→ Get ─(idle pool, FIFO | dial, TLS)→ Conn
//	        write head+body → W ─→ next hop ─→ R → head (HeaderTimeout) → Body ─EOF→ Put
//	sweep, every SweepEvery: idle conns the next hop closed, or idle past IdleLimit, closed
//
// Upgrades (WebSocket) go to the fallback http.Transport. Proxy is
// httputil.ReverseProxy over a Transport: the forwarder of what the box's
// own loops do not parse (TLS boxes, upgrades, odd framing), its error and
// response hooks the box's.
package upstream
