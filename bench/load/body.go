package load

import (
	"bytes"
	"io"
)

// bodyBlockSize is the length of the pattern a generated body repeats.
const bodyBlockSize = 32 << 10

// generatedBody returns n bytes of the pattern k6 scripts generated from
// the same YAML send ('a'…'z' cycling, restarting at every 32 KiB block).
// The body is held in memory whole, as k6 holds a script's body: net/http
// sends a body it knows is in memory (a *bytes.Reader) with the head, in
// one buffered write, where a body it cannot tell is in memory gets the
// head flushed on its own first. The two differ in how the socket's send
// buffer fills, and so in where sending ends and waiting begins: 57 ms of
// a 32 MiB upload's first request.
func generatedBody(n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%bodyBlockSize%26)
	}
	return b
}

// bodyReader is net/http's GetBody for body: each call a new reader over
// the same bytes (the first request's body, and any redirect's again).
func bodyReader(body []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}
