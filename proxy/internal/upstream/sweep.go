package upstream

import (
	"time"

	"github.com/middlebench/middlebench/proxy/internal/socket"
)

// SweepEvery is how often idle upstream connections are checked: a
// connection the next hop closed is closed here within this long, rather
// than sitting in CLOSE-WAIT until the next request finds it dead.
const SweepEvery = time.Second

// sweep checks the idle pool every SweepEvery until the transport is
// closed: connections the next hop closed (or sent unasked-for bytes on)
// and connections idle past IdleLimit are closed, the others go back.
// http.Transport keeps a reading goroutine on every idle connection for
// this; one sweep for all keeps the request path free of it.
func (t *Transport) sweep() {
	tick := time.NewTicker(SweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		// One connection out of the pool at a time, put back at once: a
		// request meanwhile still finds the others (the pool is FIFO, so
		// len turns go round it once).
		for range len(t.idle) {
			var c *Conn
			select {
			case c = <-t.idle:
			default:
			}
			if c == nil {
				break
			}
			if time.Since(c.idleSince) >= t.IdleLimit.Load() || c.R.Buffered() > 0 && t.tls == nil || socket.PeerClosed(c.Conn, t.tls != nil) {
				c.Close()
				continue
			}
			select {
			case t.idle <- c:
			default:
				c.Close()
			}
		}
	}
}
