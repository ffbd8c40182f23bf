package proxy

import (
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
	"github.com/middlebench/middlebench/proxy/internal/upstream"
)

// reverseProxy is an HTTP box's forwarder: httputil.ReverseProxy over a
// keep-alive transport to the next hop.
type reverseProxy struct {
	*httputil.ReverseProxy
	tr *upstream.Transport
}

func (r *reverseProxy) closeIdle() { r.tr.Close() }

func (b *Box) reverseProxy() *reverseProxy {
	idle := b.cfg.MaxIdleConnsPerHost
	if idle == 0 {
		idle = 1024
	}
	// For requests that upgrade the connection; upstream.Transport does the rest.
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
	tr := upstream.NewTransport(next, b.nextTLS, idle, fallback)
	tr.HeaderTimeout = b.limits.ResponseHeaderTimeout.D()
	fallback.ResponseHeaderTimeout = tr.HeaderTimeout
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(next)
			pr.Out.Host = pr.In.Host // a load balancer keeps the client's Host
			pr.SetXForwarded()
		},
		Transport:      tr,
		BufferPool:     bytePool{},
		ErrorHandler:   b.proxyError,
		ModifyResponse: b.watchResponse,
		ErrorLog:       b.log,
	}
	return &reverseProxy{ReverseProxy: rp, tr: tr}
}

// bytePool adapts copybuf to httputil.BufferPool.
type bytePool struct{}

func (bytePool) Get() []byte  { return *copybuf.Get() }
func (bytePool) Put(b []byte) { copybuf.Put(&b) }
