package selfsigned

import (
	"crypto/tls"
	"io"
	"testing"
)

func TestHandshakeVerifiesAgainstPool(t *testing.T) {
	cert, err := New()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = c.Write([]byte("ok"))
		_ = c.Close()
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: Pool(cert), ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("verified handshake: %v", err)
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	if string(b) != "ok" {
		t.Fatalf("read %q", b)
	}
}
