package wire

import (
	"net"
	"sync"
	"testing"
	"time"
)

// turns is a conn that notes when each write starts and each read returns,
// so that a handshake's time can be split into the time one end waited on
// the other and the time an end worked: a client's waits less the server's
// work between them is what the network took, whatever the CPU cost.
type turns struct {
	net.Conn
	mu     sync.Mutex
	events []turn
}

// turn is one read that returned bytes, or one write about to start.
type turn struct {
	write bool
	at    time.Time
}

func (c *turns) note(write bool) {
	c.mu.Lock()
	c.events = append(c.events, turn{write, time.Now()})
	c.mu.Unlock()
}

func (c *turns) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.note(false)
	}
	return n, err
}

// Write is noted before it starts: an end's work ends when it hands its
// flight over, and a note taken before the bytes leave is seen by the
// peer's side once the peer has them.
func (c *turns) Write(b []byte) (int, error) {
	c.note(true)
	return c.Conn.Write(b)
}

// waited is the time this end spent waiting on its peer: from the last write
// of each flight to the first read after it.
func (c *turns) waited() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum time.Duration
	var lastWrite time.Time
	for _, e := range c.events {
		if e.write {
			lastWrite = e.at
		} else if !lastWrite.IsZero() {
			sum += e.at.Sub(lastWrite)
			lastWrite = time.Time{}
		}
	}
	return sum
}

// worked is the time this end spent between receiving a flight and sending
// its answer: from the first read of each flight it got to the last write of
// the flight it answered with (a flight left unanswered counts nothing).
func (c *turns) worked() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum time.Duration
	var readStart, lastWrite time.Time
	answering := false
	for _, e := range c.events {
		switch {
		case !e.write && answering:
			sum += lastWrite.Sub(readStart)
			answering, readStart = false, e.at
		case !e.write && readStart.IsZero():
			readStart = e.at
		case e.write && !readStart.IsZero():
			answering, lastWrite = true, e.at
		}
	}
	if answering {
		sum += lastWrite.Sub(readStart)
	}
	return sum
}

// TestTurns: waits and work are read off the events as configured here.
func TestTurns(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w, r := true, false
	for _, tt := range []struct {
		name           string
		events         []turn
		waited, worked time.Duration
	}{
		// A TLS 1.2 client: hello, a flight back, three records, a flight back.
		{"client", []turn{{w, at(0)}, {r, at(40)}, {r, at(41)}, {w, at(43)}, {w, at(44)}, {r, at(84)}}, 80 * time.Millisecond, 4 * time.Millisecond},
		// Its server: reads the hello, answers 2 ms later, reads the three
		// records, answers after 3 ms, then reads application data.
		{"server", []turn{{r, at(20)}, {w, at(22)}, {r, at(62)}, {r, at(63)}, {w, at(65)}, {r, at(100)}}, 75 * time.Millisecond, 5 * time.Millisecond},
		{"unanswered", []turn{{r, at(20)}, {r, at(21)}}, 0, 0},
		{"none", nil, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &turns{events: tt.events}
			if got := c.waited(); got != tt.waited {
				t.Errorf("waited %v, want %v", got, tt.waited)
			}
			if got := c.worked(); got != tt.worked {
				t.Errorf("worked %v, want %v", got, tt.worked)
			}
		})
	}
}
