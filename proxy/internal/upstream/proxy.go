package upstream

import (
	"crypto/tls"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/copybuf"
)

// Proxy is an HTTP box's standard forwarder: httputil.ReverseProxy over a
// keep-alive Transport to the next hop.
type Proxy struct {
	*httputil.ReverseProxy
	Transport *Transport
}

// ProxyConfig is what a Proxy needs of its box. The hooks are the box's:
// they count and record what went wrong on the way.
type ProxyConfig struct {
	Next          *url.URL
	TLS           *tls.Config   // for an https next hop
	MaxIdle       int           // idle connections kept (0: 1024)
	HeaderTimeout time.Duration // how long the next hop may take to begin its answer (0: no limit)
	// ErrorHandler answers a request the next hop failed; ModifyResponse
	// sees each response before it goes back (httputil.ReverseProxy's).
	ErrorHandler   func(http.ResponseWriter, *http.Request, error)
	ModifyResponse func(*http.Response) error
	ErrorLog       *log.Logger
}

// NewProxy makes the forwarder: requests keep the client's Host and gain
// X-Forwarded-*, as behind a load balancer.
func NewProxy(cfg ProxyConfig) *Proxy {
	idle := cfg.MaxIdle
	if idle == 0 {
		idle = 1024
	}
	// For requests that upgrade the connection; Transport does the rest.
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
		TLSClientConfig:       cfg.TLS,
	}
	next := cfg.Next
	tr := NewTransport(next, cfg.TLS, idle, fallback)
	tr.HeaderTimeout = cfg.HeaderTimeout
	fallback.ResponseHeaderTimeout = tr.HeaderTimeout
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(next)
			pr.Out.Host = pr.In.Host // a load balancer keeps the client's Host
			pr.SetXForwarded()
		},
		Transport:      tr,
		BufferPool:     bytePool{},
		ErrorHandler:   cfg.ErrorHandler,
		ModifyResponse: cfg.ModifyResponse,
		ErrorLog:       cfg.ErrorLog,
	}
	return &Proxy{ReverseProxy: rp, Transport: tr}
}

// Close stops the transport's sweep and closes its idle connections.
func (p *Proxy) Close() { p.Transport.Close() }

// bytePool adapts copybuf to httputil.BufferPool.
type bytePool struct{}

func (bytePool) Get() []byte  { return *copybuf.Get() }
func (bytePool) Put(b []byte) { copybuf.Put(&b) }
