//go:build linux

// Command zoo-origin is the zoo's plain Go origin (scripts/zoo/gen.sh): an
// upstream that is not middlebench's fake server, to make real k6 runs of
// what the fake server cannot do.
//
//	-mode ok       answer 200 after -work, with Server-Timing: app;dur=<work>
//	               only: the wait for one of -workers (0 = unlimited) is NOT
//	               reported, as a server whose APM times only the handler
//	-mode reset    read the request, then reset the connection (RST)
//	-mode eof      read the request, then close without answering
//	-mode garbage  read the request, then answer bytes that are not HTTP
//	-mode cut      answer 200 with Content-Length 65536, send 1 KiB, close
//
// -backlog N with -accept-every D listens with a listen backlog of N and
// accepts one connection every D: the accept queue of a saturated server.
// It listens on loopback only (Linux: the backlog is set with listen(2)).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type options struct {
	addr        string
	mode        string
	work        time.Duration
	workers     int
	backlog     int
	acceptEvery time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.addr, "listen", "127.0.0.1:21090", "listen address (loopback only)")
	flag.StringVar(&o.mode, "mode", "ok", "ok, reset, eof, garbage or cut")
	flag.DurationVar(&o.work, "work", 50*time.Millisecond, "work per request (mode ok)")
	flag.IntVar(&o.workers, "workers", 0, "requests worked at once; the rest wait unreported (0 = unlimited)")
	flag.IntVar(&o.backlog, "backlog", 0, "listen backlog (0 = the system's)")
	flag.DurationVar(&o.acceptEvery, "accept-every", 0, "accept one connection per this interval (0 = at once)")
	flag.Parse()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

func run(o options) error {
	ln, err := listen(o.addr, o.backlog)
	if err != nil {
		return err
	}
	if o.acceptEvery > 0 {
		ln = &pacedListener{Listener: ln, every: o.acceptEvery}
	}
	log.Printf("origin: %s on %s", o.mode, ln.Addr())
	switch o.mode {
	case "ok":
		srv := &http.Server{Handler: worker(o.work, o.workers), ReadHeaderTimeout: 10 * time.Second}
		return srv.Serve(ln)
	case "reset", "eof", "garbage", "cut":
		for {
			c, err := ln.Accept()
			if err != nil {
				return err
			}
			go misbehave(c, o.mode)
		}
	default:
		return fmt.Errorf("origin: -mode %q: want ok, reset, eof, garbage or cut", o.mode)
	}
}

// worker answers after work, at most workers at once; Server-Timing has the
// work only, never the wait for a worker.
func worker(work time.Duration, workers int) http.Handler {
	var slots chan struct{}
	if workers > 0 {
		slots = make(chan struct{}, workers)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slots != nil {
			slots <- struct{}{}
			defer func() { <-slots }()
		}
		start := time.Now()
		time.Sleep(work)
		w.Header().Set("Server-Timing", "app;dur="+strconv.FormatFloat(float64(time.Since(start))/1e6, 'f', 3, 64))
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "ok")
	})
}

// misbehave reads each request's head on c, then fails it as mode says.
func misbehave(c net.Conn, mode string) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		req.Body.Close()
		switch mode {
		case "reset":
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // close sends RST
			}
			return
		case "eof":
			return
		case "garbage":
			c.Write([]byte("SSH-2.0-OpenSSH_9.2 this is not HTTP\r\n\r\n"))
			return
		case "cut":
			head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 65536\r\n" +
				"Server-Timing: app;dur=0.1\r\n\r\n"
			c.Write([]byte(head + strings.Repeat("x", 1024)))
			return
		}
	}
}

// pacedListener accepts at most one connection per every: the others wait
// in the kernel's accept queue (and beyond the backlog, their SYNs are dropped).
type pacedListener struct {
	net.Listener
	every time.Duration
	last  time.Time
}

func (p *pacedListener) Accept() (net.Conn, error) {
	if wait := p.every - time.Since(p.last); wait > 0 {
		time.Sleep(wait)
	}
	p.last = time.Now()
	return p.Listener.Accept()
}
