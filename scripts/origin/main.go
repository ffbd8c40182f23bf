// Command origin is the trivial HTTP origin of scripts/bench-engine.sh: it
// answers every request at once with a small body and a Server-Timing
// header, on 127.0.0.1 only, so load generators are compared on the same
// work.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	flag.Parse()
	body := []byte("hello from the bench origin\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		w.Header().Set("Server-Timing", "app;dur="+strconv.FormatFloat(float64(time.Since(start))/1e6, 'f', 3, 64))
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ln, err := listen(*addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	os.Stdout.Sync()
	log.Fatal(srv.Serve(ln))
}
