package tcptest

import (
	"io"
	"net"
	"testing"
)

func TestServeHandsEachConnection(t *testing.T) {
	addr := Serve(t, func(c net.Conn) {
		defer c.Close()
		io.WriteString(c, "hello")
	})
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil || string(b) != "hello" {
			t.Fatalf("read %q, %v", b, err)
		}
	}
}
