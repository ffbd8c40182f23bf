// Command hoplat measures what each hop adds to a request's round trip at one
// connection, for scripts/bench-proxy.sh. Unlike one wrk -c1 run per target
// after another, it interleaves the targets request by request (the order
// rotated each time): every target meets the same moments of the shared
// machine, so the difference of two targets' percentiles is the hops', not
// the difference of two moments. The first target is the baseline.
//
//	go run ./internal/cmd/hoplat -n 20000 direct=127.0.0.1:8080 box=127.0.0.1:8081
//
// prints, per target, "name p50 p99 p999" in µs of the whole round trip
// (write of the request to the last byte of the response), and the same
// less the baseline's.
package main

import (
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 20000, "requests per target, after the warm-up")
	warm := flag.Int("warm", 1000, "requests per target first, not counted")
	path := flag.String("path", "/", "request path")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hoplat [-n N] [-warm N] [-path P] NAME=HOST:PORT... (the first is the baseline)")
		flag.PrintDefaults()
	}
	flag.Parse()
	targets, err := measure(*n, *warm, *path, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "hoplat:", err)
		os.Exit(1)
	}
	base := percentiles(targets[0].times)
	for _, t := range targets {
		p := percentiles(t.times)
		fmt.Printf("%s %.1f %.1f %.1f added %.1f %.1f %.1f\n", t.name, us(p[0]), us(p[1]), us(p[2]),
			us(p[0]-base[0]), us(p[1]-base[1]), us(p[2]-base[2]))
	}
}

// target is one hop chain under test: its keep-alive connection and the
// round trips measured through it.
type target struct {
	name  string
	conn  *responseConn
	times []time.Duration
}

// measure runs warm+n round trips through every target, interleaved, and
// returns the last n of each.
func measure(n, warm int, path string, args []string) ([]*target, error) {
	if len(args) < 1 || n < 1 || warm < 0 {
		return nil, fmt.Errorf("want -n ≥ 1, -warm ≥ 0 and at least one NAME=HOST:PORT")
	}
	targets := make([]*target, 0, len(args))
	for _, a := range args {
		name, addr, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=HOST:PORT", a)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer c.Close()
		targets = append(targets, &target{name: name, conn: newResponseConn(c, addr, path), times: make([]time.Duration, 0, n)})
	}
	for i := 0; i < warm+n; i++ {
		for k := range targets {
			t := targets[(i+k)%len(targets)]
			start := time.Now()
			if err := t.conn.roundTrip(); err != nil {
				return nil, fmt.Errorf("%s: request %d: %w", t.name, i+1, err)
			}
			if i >= warm {
				t.times = append(t.times, time.Since(start))
			}
		}
	}
	return targets, nil
}

// percentiles returns p50, p99 and p99.9 of the round trips (nearest rank).
// Not timing.Trend: its 1-µs buckets would quantize a hop's 20-30 µs by
// several percent, and 20,000 exact samples per target sort in a moment.
func percentiles(d []time.Duration) [3]time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[max(0, int(math.Ceil(q*float64(len(s))))-1)] }
	return [3]time.Duration{at(0.50), at(0.99), at(0.999)}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
