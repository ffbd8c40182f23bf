package h1loop

import (
	"math/rand/v2"
	"net/url"
	"testing"
)

// TestPlainPathParsesAsNetURL: a target plainPath takes is the URL
// url.ParseRequestURI makes of it, {Path: target} and nothing else; the
// table holds the bytes at the edges (escapes, a query, what the path
// encoding would escape), then seeded random targets over printable bytes.
func TestPlainPathParsesAsNetURL(t *testing.T) {
	targets := []string{"/", "/a/b.c", "/-._~$&+,/:;=@", "/a%20b", "/a?b", "/a?", "/a#b", "/a b", "/a!b", "/a*b", "/a(b)", "/a'b",
		"/a\"b", "/a<b>", "/a[b]", "/a{b}", "/a|b", "/a\\b", "/a^b", "/a`b", "//host/p", "/é", "a/b", "*", ""}
	rng := rand.New(rand.NewPCG(16, 4))
	for range 20000 {
		b := []byte{'/'}
		for range rng.IntN(6) {
			b = append(b, byte(' '+rng.IntN(95)))
		}
		targets = append(targets, string(b))
	}
	plain := 0
	for _, target := range targets {
		if !plainPath(target) {
			continue
		}
		plain++
		u, err := url.ParseRequestURI(target)
		if err != nil || *u != (url.URL{Path: target}) {
			t.Errorf("%q: plain, but ParseRequestURI gives %#v, %v", target, u, err)
		}
	}
	if plain < 100 {
		t.Errorf("only %d of %d targets plain: the test checks too little", plain, len(targets))
	}
}
