package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// reverseProxy is an HTTP box's forwarder: httputil.ReverseProxy over a
// keep-alive transport to the next hop.
type reverseProxy struct {
	*httputil.ReverseProxy
	tr *upstreamTransport
}

func (r *reverseProxy) closeIdle() { r.tr.CloseIdleConnections() }

func (b *Box) reverseProxy() http.Handler {
	idle := b.cfg.MaxIdleConnsPerHost
	if idle == 0 {
		idle = 1024
	}
	// For requests that upgrade the connection; upstreamTransport does the rest.
	fallback := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no total limit: the per-host one is what matters with one next hop
		MaxIdleConnsPerHost:   idle,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true, // pass bodies through as they are
		ForceAttemptHTTP2:     false,
		WriteBufferSize:       32 << 10,
		ReadBufferSize:        32 << 10,
		TLSClientConfig:       b.nextTLS,
	}
	next := b.next
	tr := newUpstreamTransport(next, b.nextTLS, idle, fallback)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(next)
			pr.Out.Host = pr.In.Host // a load balancer keeps the client's Host
			pr.SetXForwarded()
		},
		Transport:    tr,
		BufferPool:   bytePool{},
		ErrorHandler: b.proxyError,
		ErrorLog:     b.log,
	}
	return &reverseProxy{ReverseProxy: rp, tr: tr}
}

// proxyError answers 502 with a body that says which box could not reach
// what, or counts a client that went away.
func (b *Box) proxyError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		b.clientAborts.Add(1)
		w.WriteHeader(499) // nobody reads it; keeps net/http from writing 200
		return
	}
	b.upstreamErrors.Add(1)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Middlebench-Box", b.name)
	w.WriteHeader(http.StatusBadGateway)
	fmt.Fprintf(w, "middlebench box %q: bad gateway: next hop %s: %v\n", b.name, b.next, err)
}

func clientGone(r *http.Request, err error) bool {
	if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
		return true
	}
	// The request body ended early: the client, not the upstream, failed.
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errBodyRead)
}

var errBodyRead = errors.New("reading the request body")

// bytePool adapts bufPool to httputil.BufferPool.
type bytePool struct{}

func (bytePool) Get() []byte  { return *bufPool.Get().(*[]byte) }
func (bytePool) Put(b []byte) { bufPool.Put(&b) }

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}
