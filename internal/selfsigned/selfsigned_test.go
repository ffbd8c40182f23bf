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

func TestDefaultHostsAreLoopback(t *testing.T) {
	cert, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"127.0.0.1", "::1", "localhost"} {
		if err := cert.Leaf.VerifyHostname(h); err != nil {
			t.Errorf("default certificate not valid for %s: %v", h, err)
		}
	}
	if err := cert.Leaf.VerifyHostname("example.com"); err == nil {
		t.Error("default certificate valid for example.com")
	}
	// A caller changing the returned slice changes nobody else's.
	DefaultHosts()[0] = "example.com"
	if DefaultHosts()[0] != "127.0.0.1" {
		t.Error("DefaultHosts shares its slice")
	}
}

func TestNamedHosts(t *testing.T) {
	cert, err := New("db.test", "10.1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	if cert.Leaf.Subject.CommonName != "db.test" {
		t.Errorf("CN = %q, want the first host", cert.Leaf.Subject.CommonName)
	}
	for _, h := range []string{"db.test", "10.1.2.3"} {
		if err := cert.Leaf.VerifyHostname(h); err != nil {
			t.Errorf("not valid for %s: %v", h, err)
		}
	}
	if err := cert.Leaf.VerifyHostname("localhost"); err == nil {
		t.Error("named certificate also valid for localhost")
	}
}
