package h1loop

import (
	"bytes"
	"errors"
	"net/http"
	"testing"
)

// FuzzParseHeadFraming: whatever the head, parseHead never panics; a head
// naming both Content-Length and Transfer-Encoding (any case) is
// errConflictingFraming whatever else it holds, unless it is refused before
// its header lines (request line); a head it takes has no Transfer-Encoding
// and one Content-Length at most.
func FuzzParseHeadFraming(f *testing.F) {
	for _, s := range []string{
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\ncontent-length: 5\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\nTransfer-Encoding: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		h := http.Header{}
		p, _, err := parseHead(raw, h, nil)
		if errors.Is(err, errConflictingFraming) {
			lower := bytes.ToLower(raw)
			if !bytes.Contains(lower, []byte("\ncontent-length:")) || !bytes.Contains(lower, []byte("\ntransfer-encoding:")) {
				t.Fatalf("%q: conflicting framing without both headers", raw)
			}
			return
		}
		if err != nil {
			return
		}
		if len(h["Transfer-Encoding"]) > 0 || len(h["Content-Length"]) > 1 || p.cl < 0 {
			t.Fatalf("%q taken with header %v, cl %d", raw, h, p.cl)
		}
	})
}
