package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// writeLog records the size of every write made on the connections it dialed.
type writeLog struct {
	mu     sync.Mutex
	writes []int
}

type loggedConn struct {
	net.Conn
	log *writeLog
}

func (c loggedConn) Write(p []byte) (int, error) {
	c.log.mu.Lock()
	c.log.writes = append(c.log.writes, len(p))
	c.log.mu.Unlock()
	return c.Conn.Write(p)
}

func (l *writeLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return loggedConn{Conn: c, log: l}, nil
}

// TestBodySentAsK6Sends: a generated body goes out as k6's in-memory body
// does — the head and the body's first bytes in one 4 KiB write (net/http's
// buffer), where a body net/http cannot tell is in memory has the head
// flushed alone first — and its bytes are the pattern the generated k6
// script sends ('a'…'z' cycling, restarting every 32 KiB).
func TestBodySentAsK6Sends(t *testing.T) {
	const size = 100_000
	bad := make(chan string, 1)
	s := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		switch {
		case err != nil:
			bad <- err.Error()
		case len(b) != size:
			bad <- fmt.Sprintf("%d bytes, want %d", len(b), size)
		default:
			for i, c := range b {
				if want := byte('a' + i%(32<<10)%26); c != want {
					bad <- fmt.Sprintf("byte %d is %q, want %q", i, c, want)
					return
				}
			}
		}
	}))
	var log writeLog
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := Run(ctx, &Config{URL: s.URL, VUs: 1, Iterations: 1, BodySize: size}, Options{Dial: log.dial})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-bad:
		t.Fatalf("server: %s", msg)
	default:
	}
	if res.Requests != 1 || res.Failed != 0 {
		t.Fatalf("%d requests, %d failed: want 1, 0", res.Requests, res.Failed)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.writes) == 0 || log.writes[0] != 4096 {
		t.Fatalf("writes %v: want the head and the body's first bytes in one 4096-byte write", log.writes)
	}
}
