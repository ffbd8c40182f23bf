package proxy

import (
	"strings"
	"testing"
)

// TestLeanHeaderPerRequest: requests on one connection share its header
// map and values' array (headerFor); each reaches the next hop with its
// own headers only, repeated ones in order, whatever came before.
func TestLeanHeaderPerRequest(t *testing.T) {
	up := echoOrigin(t)
	p := startYAML(t, "boxes: [{stages: [{kind: waf}]}]", up.URL)
	addr := strings.TrimPrefix(p.URL(), "http://")
	in := "GET /1 HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nX-Dup: a\r\nX-Dup: b\r\nX-C: 3\r\nX-D: 4\r\n\r\n" +
		"GET /2 HTTP/1.1\r\nHost: h\r\nX-Dup: c\r\nX-B: 2\r\n\r\n" +
		"GET /3 HTTP/1.1\r\nHost: h\r\nX-E: 5\r\nX-F: 6\r\nX-G: 7\r\nX-H: 8\r\nX-I: 9\r\nX-Dup: d\r\nX-Dup: e\r\nX-Dup: f\r\n\r\n"
	_, bodies := exchangeRaw(t, addr, in, 3)
	for i, tt := range []struct{ has, not []string }{
		{[]string{"GET /1 ", "X-A: 1\n", "X-C: 3\n", "X-D: 4\n", "X-Dup: a\nX-Dup: b\n"}, []string{"X-B:", "X-Dup: c"}},
		{[]string{"GET /2 ", "X-B: 2\n", "X-Dup: c\n"}, []string{"X-A:", "X-C:", "X-D:", "X-Dup: a", "X-Dup: b"}},
		{[]string{"GET /3 ", "X-E: 5\n", "X-I: 9\n", "X-Dup: d\nX-Dup: e\nX-Dup: f\n"}, []string{"X-A:", "X-B:", "X-Dup: c"}},
	} {
		contains(t, bodies[i], tt.has...)
		for _, s := range tt.not {
			if strings.Contains(bodies[i], s) {
				t.Errorf("answer %d has %q:\n%s", i+1, s, bodies[i])
			}
		}
	}
}
