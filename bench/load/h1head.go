package load

import (
	"bytes"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// h1MaxHead is the largest request head the lean client sends: net/http
// buffers a request in 4 KiB (Transport.WriteBufferSize) and calls
// WroteRequest before flushing the last buffer, so for a head that fits,
// WroteRequest comes before the write syscall in both clients. A longer
// head would flush part way through; such targets go through net/http.
const h1MaxHead = 4096

// h1Methods are the methods the lean client sends: body-less and, in
// net/http's terms, replayable, so that a request on a keep-alive
// connection the server has closed is retried on a new one exactly when
// net/http retries it.
var h1Methods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodOptions: true, http.MethodTrace: true}

// h1Headers are request headers that change how net/http frames or
// manages the exchange (protocol switches, 100-continue, explicit
// framing): a target that sets one goes through net/http.
var h1Headers = []string{"Connection", "Upgrade", "Expect", "Content-Length", "Transfer-Encoding", "Trailer", "Te"}

// h1ReqExclude are the headers net/http's Request.write writes itself
// rather than from the header map.
var h1ReqExclude = map[string]bool{"Host": true, "User-Agent": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

// renderHead returns the request head net/http's transport writes for a
// body-less request to u with Host host: the request line, Host, User-Agent (Go's
// default unless set; none when set empty), the other headers sorted by
// key, then the transport's "Connection: close" when keep-alive is off.
// Same bytes, so data_sent and what the server sees do not depend on the
// client. ok is false when the request is one the lean client leaves to
// net/http (see h1Methods, h1Headers, h1MaxHead, a host needing IDNA).
func renderHead(method string, u *url.URL, host string, h http.Header, noKeepAlive bool) (head []byte, ok bool) {
	if u.Scheme != "http" || u.User != nil || !h1Methods[method] {
		return nil, false
	}
	for _, k := range h1Headers {
		if _, set := h[k]; set {
			return nil, false
		}
	}
	ruri := u.RequestURI()
	if !plainASCII(host) || strings.Contains(host, "%") || !plainASCII(ruri) || u.Host == "" {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteString(method + " " + ruri + " HTTP/1.1\r\nHost: " + host + "\r\n")
	ua := "Go-http-client/1.1"
	if _, set := h["User-Agent"]; set {
		ua = h.Get("User-Agent")
	}
	if ua = textproto.TrimString(strings.NewReplacer("\n", " ", "\r", " ").Replace(ua)); ua != "" {
		b.WriteString("User-Agent: " + ua + "\r\n")
	}
	if err := h.WriteSubset(&b, h1ReqExclude); err != nil {
		return nil, false
	}
	if noKeepAlive {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	if b.Len() > h1MaxHead {
		return nil, false
	}
	return b.Bytes(), true
}

// plainASCII reports whether s is printable ASCII without spaces: what
// net/http writes unchanged in a request line or Host header.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// h1Addr is the address net/http dials for u: host:port, port 80 when
// the URL has none.
func h1Addr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return strings.TrimSuffix(u.Host, ":") + ":80"
}
