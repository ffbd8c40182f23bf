package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/tcptest"
)

// benchProxyHTTP is scripts/bench-proxy.sh's box(http): waf, ratelimit,
// uablock and fault configured but inactive.
const benchProxyHTTP = `boxes:
  - name: http
    stages:
      - {kind: waf}
      - {kind: ratelimit, rate: 1000000000/s}
      - {kind: uablock, patterns: [^never-matches$]}
      - {kind: fault}
`

// serverAnswer is what middlebench server answers GET / (the origin of
// bench-proxy.sh), and heyRequest what hey sends.
const (
	serverAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Server-Timing: app;dur=0.002, queue;dur=0.000, read;dur=0.000\r\nDate: Wed, 02 Dec 2026 01:51:37 GMT\r\n\r\n"
	heyRequest = "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: hey/0.0.1\r\nContent-Type: text/html\r\n\r\n"
)

// boxProcessEnv, when set to an upstream URL, makes TestBoxProcess run
// benchProxyHTTP's box (alone in this process) in front of it; it prints
// "listening ADDR" and serves until its standard input closes.
const boxProcessEnv = "MIDDLEBENCH_BOX_PROCESS"

func TestBoxProcess(t *testing.T) {
	up := os.Getenv(boxProcessEnv)
	if up == "" {
		t.Skip("the box process of BenchmarkBoxCost")
	}
	cfg := benchProxyHTTP
	if os.Getenv(boxProcessEnv+"_BYTES") != "" {
		cfg = "boxes: [{name: plain}]"
	}
	p := startYAML(t, cfg, up)
	fmt.Printf("listening %s\n", p.Boxes()[0].Addr())
	io.Copy(io.Discard, os.Stdin)
}

// BenchmarkBoxCost measures what requests cost the box's process alone:
// the box runs in a child process (TestBoxProcess), the origin (rawOrigin
// answering as middlebench server) and the clients (rawClient sending
// hey's request, keep-alive, BOXCOST_CONNS connections, 50 by default) in
// this one. After a warm-up, BOXCOST_N requests (20000) are
// sent and the child's CPU time per request is reported; with perf on
// PATH also its system calls and context switches per request (tracepoint
// counts, the same whatever the machine's load).
//
// BOXCOST_WRAP runs the child under a command, e.g.
//
//	BOXCOST_WRAP="valgrind --tool=callgrind --callgrind-out-file=/tmp/box.cg" \
//	  go test -run '^$' -bench BoxCost -benchtime 1x ./proxy/
//
// (with GODEBUG=asyncpreemptoff=1: callgrind trips on the runtime's
// preemption signals). callgrind's counters are zeroed before the
// measured requests and dumped after them (callgrind_control), and the
// user-space instructions per request are reported: repeatable within a
// few per cent on a shared machine, where CPU time is not.
// BOXCOST_BYTES=1 measures the byte box instead; BOXCOST_PERF_EVENTS
// names the events perf counts (e.g. syscalls:sys_enter_read);
// BOXCOST_PERF_RECORD=FILE records a profile (cpu-clock, kernel
// included) of the measured requests instead.
func BenchmarkBoxCost(b *testing.B) {
	conns := envInt(b, "BOXCOST_CONNS", 50)
	n := envInt(b, "BOXCOST_N", 20000)
	up := "http://" + originAt(b, os.Getenv("BOXCOST_ORIGIN"))
	wrap := strings.Fields(os.Getenv("BOXCOST_WRAP"))
	callgrind := len(wrap) > 0 && strings.Contains(strings.Join(wrap, " "), "callgrind")
	for b.Loop() {
		var box *boxProcess
		if peer := os.Getenv("BOXCOST_PEER"); peer != "" {
			box = peerProcess(b, peer, wrap)
		} else {
			box = startBoxProcess(b, wrap, up)
		}
		cs := make([]*rawClient, conns)
		for i := range cs {
			cs[i] = newRawClient(b, box.addr)
			cs[i].req = []byte(fmt.Sprintf(heyRequest, box.addr))
			defer cs[i].Close()
		}
		drive(b, cs, 20*conns) // warm-up: connections, pools, the code paths
		if callgrind {
			box.callgrind(b, "-z")
		}
		counts := startPerf(b, box.cmd.Process.Pid)
		cpu0 := procCPU(b, box.cmd.Process.Pid)
		drive(b, cs, n)
		cpu := procCPU(b, box.cmd.Process.Pid) - cpu0
		if counts != nil {
			for name, v := range counts() {
				b.ReportMetric(v/float64(n), name+"/req")
			}
		}
		b.ReportMetric(float64(cpu)/float64(time.Microsecond)/float64(n), "cpu-µs/req")
		if callgrind {
			b.ReportMetric(float64(box.callgrindDump(b))/float64(n), "instr/req")
		}
		box.stop(b)
	}
}

// originAt is rawOriginWith(serverAnswer), on addr when one is given (a
// peer proxy set up beforehand points there).
func originAt(b *testing.B, addr string) string {
	if addr == "" {
		return rawOriginWith(b, serverAnswer)
	}
	return tcptest.ServeAt(b, addr, func(c net.Conn) { serveRaw(c, []byte(serverAnswer)) })
}

// drive sends n requests over the clients, each on its own goroutine.
func drive(b *testing.B, cs []*rawClient, n int) {
	var wg sync.WaitGroup
	errs := make([]error, len(cs))
	for i, c := range cs {
		k := n / len(cs)
		if i < n%len(cs) {
			k++
		}
		wg.Go(func() {
			for range k {
				if errs[i] = c.do(); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
