package h1

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCutLine: RFC 9112 §2.2: lines end with CRLF; a bare LF is refused
// (a recipient MAY accept it; these callers hand it to net/http) and a
// bare CR makes the element invalid.
func TestCutLine(t *testing.T) {
	for _, tt := range []struct {
		s, line, rest string
		ok            bool
	}{
		{"GET / HTTP/1.1\r\nHost: a\r\n", "GET / HTTP/1.1", "Host: a\r\n", true},
		{"\r\n", "", "", true},
		{"\r\nx", "", "x", true},
		{"a\r\n\r\n", "a", "\r\n", true},
		{"", "", "", false},
		{"no end", "", "", false},
		{"a\r", "", "", false},
		{"a\nb\r\n", "", "", false},      // bare LF first
		{"\n", "", "", false},            // bare LF at the start
		{"a\rb\r\n", "", "", false},      // bare CR in the line
		{"a\r\r\n", "", "", false},       // CR CR LF: the first CR is bare
		{"a\r\nb\rc", "a", "b\rc", true}, // the next line is the next call's
	} {
		line, rest, ok := CutLine(tt.s)
		if line != tt.line || rest != tt.rest || ok != tt.ok {
			t.Errorf("CutLine(%q) = %q, %q, %v; want %q, %q, %v", tt.s, line, rest, ok, tt.line, tt.rest, tt.ok)
		}
		bl, br, bok := CutLine([]byte(tt.s))
		if string(bl) != tt.line || string(br) != tt.rest || bok != tt.ok {
			t.Errorf("CutLine([]byte(%q)) = %q, %q, %v; want %q, %q, %v", tt.s, bl, br, bok, tt.line, tt.rest, tt.ok)
		}
	}
}

// TestHeadEnd: the head ends with the empty line after its fields (RFC
// 9112 §2.1); HeadEnd finds what bytes.Index finds, over a table of
// edges and 50,000 seeded random strings of the bytes that matter.
func TestHeadEnd(t *testing.T) {
	want := func(b []byte) int {
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			return i + 4
		}
		return 0
	}
	for _, tt := range []struct {
		s    string
		want int
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 38},
		{"\r\n\r\n", 4},
		{"GET / HTTP/1.1\r\nHost: x\r\n", 0},
		{"GET / HTTP/1.1\nHost: x\n\n", 0}, // bare LFs: no CRLFCRLF
		{"", 0},
	} {
		if got := HeadEnd([]byte(tt.s)); got != tt.want {
			t.Errorf("HeadEnd(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = "\r\na:"[rng.IntN(4)]
		}
		if got, w := HeadEnd(b), want(b); got != w {
			t.Fatalf("HeadEnd(%q) = %d, bytes.Index says %d", b, got, w)
		}
	}
}

func TestHasBareLF(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", false}, {"a\r\nb\r\n\r\n", false}, {"a\r\n\r", false},
		{"\n", true}, {"a\nb", true}, {"a\r\nb\n", true}, {"a\r\r\n\n", true},
	} {
		if got := HasBareLF([]byte(tt.s)); got != tt.want {
			t.Errorf("HasBareLF(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
