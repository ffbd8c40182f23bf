package h1loop

import (
	"strings"
	"sync/atomic"
	"testing"
)

// The rows below are where the lean paths read bytes by RFC 9110/9112
// more strictly than their first parser did; each expectation is the
// RFC's, written before the code was run.

// TestRespHeadByTheRFC: an answer head the forwarder copies as bytes has
// a Content-Length of 1*DIGIT (RFC 9110 §8.6: no sign), a status line
// without a bare CR (RFC 9112 §2.2), and its tokens compared ignoring
// ASCII case only (RFC 9110 §5.6.2: a token is ASCII; "K" U+212A and "ſ"
// U+017F are not letters of one). Anything else goes to net/http.
func TestRespHeadByTheRFC(t *testing.T) {
	for _, tt := range []struct {
		name, head string
		generic    bool
		chunked    bool
		close      bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", false, false, false},
		{"length with a plus sign", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n", true, false, false},
		{"length minus zero", "HTTP/1.1 200 OK\r\nContent-Length: -0\r\n\r\n", true, false, false},
		{"a bare CR in the reason", "HTTP/1.1 200 O\rK\r\nContent-Length: 2\r\n\r\n", true, false, false},
		{"chunked in capitals", "HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n", false, true, false},
		{"chunked with a Kelvin sign", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chun\u212aed\r\n\r\n", true, false, false},
		{"connection options in any ASCII case", "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 2\r\n\r\n", false, false, true},
		{"keep-alive with a Kelvin sign", "HTTP/1.1 200 OK\r\nConnection: \u212aeep-alive\r\nContent-Length: 2\r\n\r\n", true, false, false},
	} {
		h := sortRespHead([]byte(tt.head), "GET", nil)
		if h.generic != tt.generic || !h.generic && (h.chunked != tt.chunked || h.close != tt.close) {
			t.Errorf("%s: %q: generic %v chunked %v close %v, want %v %v %v", tt.name, tt.head, h.generic, h.chunked, h.close,
				tt.generic, tt.chunked, tt.close)
		}
	}
}

// TestRequestTokensByTheRFC: the request's Connection and TE lists hold
// tokens compared ignoring ASCII case only (RFC 9110 §7.6.1, §10.1.4):
// "cloſe" is not close, "\u212a-Foo" does not name K-Foo, "trailerſ" is
// not trailers — as net/http reads them too.
func TestRequestTokensByTheRFC(t *testing.T) {
	lc := &leanConn{e: &Engine{cfg: Config{ReqSeq: new(atomic.Uint64)}}, remote: "127.0.0.1:40000", remoteHost: "127.0.0.1", hasRemoteHost: true}
	for _, tt := range []struct {
		name, fields string
		close        bool
		has, not     []string // in the next hop's head
	}{
		{"close in capitals", "Connection: Keep-Alive, CLOSE\r\n", true, nil, nil},
		{"close with a long s", "Connection: clo\u017fe\r\n", false, nil, nil},
		{"a listed header dropped", "Connection: x-foo\r\nX-Foo: 1\r\n", false, nil, []string{"X-Foo"}},
		{"a header named with a Kelvin sign kept", "Connection: \u212a-foo\r\nK-Foo: 1\r\n", false, []string{"K-Foo: 1\r\n"}, nil},
		{"trailers in capitals", "Te: TRAILERS\r\n", false, []string{"Te: trailers\r\n"}, nil},
		{"trailers with a long s", "Te: trailer\u017f\r\n", false, nil, []string{"Te:"}},
	} {
		head := "GET / HTTP/1.1\r\nHost: h\r\n" + tt.fields + "\r\n"
		r, err := lc.parse([]byte(head), 1)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if r.Close != tt.close {
			t.Errorf("%s: close %v, want %v", tt.name, r.Close, tt.close)
		}
		out := string(lc.appendRequestHead(nil, r))
		for _, s := range tt.has {
			if !strings.Contains(out, s) {
				t.Errorf("%s: the next hop's head lacks %q:\n%s", tt.name, s, out)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(out, s) {
				t.Errorf("%s: the next hop's head has %q:\n%s", tt.name, s, out)
			}
		}
	}
}
