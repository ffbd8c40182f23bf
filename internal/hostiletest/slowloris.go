package hostiletest

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Slowloris opens n connections to addr that send a request's headers one
// byte every period and never finish them, the way a slowloris attack
// holds a server's connections. Every write of a round goes out from one
// goroutine, so n costs n sockets, not n goroutines. Stop closes them all;
// it is also called when the test ends.
func Slowloris(tb testing.TB, addr string, n int, period time.Duration) (stop func()) {
	tb.Helper()
	conns := make([]net.Conn, 0, n)
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			tb.Fatalf("slowloris connection %d of %d: %v", len(conns)+1, n, err)
		}
		c.Write([]byte("GET / HTTP/1.1\r\nHost: slowloris\r\nX-Slow: "))
		conns = append(conns, c)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			for _, c := range conns {
				c.SetWriteDeadline(time.Now().Add(period))
				c.Write([]byte("a")) // a connection the server closed fails here: ignored
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			for _, c := range conns {
				c.Close()
			}
		})
	}
	tb.Cleanup(stop)
	return stop
}
