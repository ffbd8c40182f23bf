package h1

import "testing"

var (
	benchResponse = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 1024\r\n" +
		"Date: Fri, 04 Dec 2026 23:00:00 GMT\r\nServer-Timing: app;dur=0.052, queue;dur=0.000, read;dur=0.001\r\n" +
		"Connection: keep-alive\r\n\r\n")
	benchRequest = "GET /api/items?page=2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: k6/1.8.1 (https://k6.io/)\r\n" +
		"Accept: */*\r\nAccept-Encoding: gzip\r\nConnection: Keep-Alive\r\n\r\n"
)

// readResponse reads a response head as the load engine does: status
// line, then each field, the framing and connection ones looked at.
func readResponse(b []byte) (code int, length int64, keepAlive bool) {
	line, rest, ok := CutLine(b[:HeadEnd(b)])
	st, ok2 := ParseStatusLine(line)
	if !ok || !ok2 {
		return 0, 0, false
	}
	for len(rest) > 2 {
		f, ok := CutField(rest)
		if !ok {
			return 0, 0, false
		}
		name, value := rest[:f.Colon], rest[f.ValueStart:f.ValueEnd]
		switch {
		case EqualFold(name, "content-length"):
			length, _ = ContentLength(value)
		case EqualFold(name, "connection"):
			keepAlive = HasToken(value, "keep-alive")
		}
		rest = rest[f.Next:]
	}
	return st.Code, length, keepAlive
}

// readRequest reads a request head held as a string, as the proxy does.
func readRequest(s string) (target string, keepAlive bool) {
	line, rest, ok := CutLine(s)
	r, ok2 := ParseRequestLine(line)
	if !ok || !ok2 {
		return "", false
	}
	for len(rest) > 2 {
		f, ok := CutField([]byte(rest)) // no copy: CutField neither keeps nor writes b (TestReadingDoesNotAllocate)
		if !ok {
			return "", false
		}
		name, value := rest[:f.Colon], rest[f.ValueStart:f.ValueEnd]
		switch {
		case EqualFold(name, "host"):
			if !IsHost(value) {
				return "", false
			}
		case EqualFold(name, "connection"):
			keepAlive = HasToken(value, "keep-alive")
		}
		rest = rest[f.Next:]
	}
	return r.Target, keepAlive
}

func TestReadingDoesNotAllocate(t *testing.T) {
	if code, n, ka := readResponse(benchResponse); code != 200 || n != 1024 || !ka {
		t.Fatalf("readResponse = %d %d %v", code, n, ka)
	}
	if target, ka := readRequest(benchRequest); target != "/api/items?page=2" || !ka {
		t.Fatalf("readRequest = %q %v", target, ka)
	}
	if a := testing.AllocsPerRun(100, func() { readResponse(benchResponse) }); a != 0 {
		t.Errorf("a response head: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { readRequest(benchRequest) }); a != 0 {
		t.Errorf("a request head: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() { ChunkSize([]byte("1f4;x=y")) }); a != 0 {
		t.Errorf("a chunk-size line: %v allocations", a)
	}
}

func BenchmarkResponseHead(b *testing.B) {
	b.SetBytes(int64(len(benchResponse)))
	for b.Loop() {
		readResponse(benchResponse)
	}
}

func BenchmarkRequestHead(b *testing.B) {
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		readRequest(benchRequest)
	}
}
