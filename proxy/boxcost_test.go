package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveRaw(c, []byte(serverAnswer))
		}
	}()
	return addr
}

// peerProcess measures another proxy instead of the box: BOXCOST_PEER is
// "PID ADDR", a process already listening on ADDR in front of
// BOXCOST_ORIGIN (e.g. toxiproxy-server, under valgrind when wrap is).
// The box process started meanwhile is stopped at once.
func peerProcess(b *testing.B, peer string, wrap []string) *boxProcess {
	f := strings.Fields(peer)
	if len(f) != 2 {
		b.Fatalf("BOXCOST_PEER=%q: want PID ADDR", peer)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		b.Fatal(err)
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		b.Fatal(err)
	}
	p := &boxProcess{cmd: &exec.Cmd{Process: proc}, addr: f[1], peer: true}
	for _, a := range wrap {
		if f, ok := strings.CutPrefix(a, "--callgrind-out-file="); ok {
			p.out = f
		}
	}
	return p
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

// boxProcess is TestBoxProcess running in a child.
type boxProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
	out   string // callgrind's output file, when wrapped in it
	peer  bool   // another proxy, running before and after
}

func startBoxProcess(b *testing.B, wrap []string, up string) *boxProcess {
	args := append(wrap, os.Args[0], "-test.run=^TestBoxProcess$", "-test.count=1")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), boxProcessEnv+"="+up)
	if os.Getenv("BOXCOST_BYTES") != "" {
		cmd.Env = append(cmd.Env, boxProcessEnv+"_BYTES=1")
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &boxProcess{cmd: cmd, stdin: stdin}
	for _, a := range wrap {
		if f, ok := strings.CutPrefix(a, "--callgrind-out-file="); ok {
			p.out = f
		}
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
			p.addr = addr
			break
		}
	}
	if p.addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatal("the box process did not start")
	}
	go io.Copy(io.Discard, stdout)
	return p
}

func (p *boxProcess) stop(b *testing.B) {
	if p.peer {
		return
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		b.Errorf("box process: %v", err)
	}
}

// callgrind runs callgrind_control with one option on the box.
func (p *boxProcess) callgrind(b *testing.B, opt string) {
	out, err := exec.Command("callgrind_control", opt, strconv.Itoa(p.cmd.Process.Pid)).CombinedOutput()
	if err != nil {
		b.Fatalf("callgrind_control %s: %v\n%s", opt, err, out)
	}
}

// callgrindDump dumps the counters since the last zeroing and returns the
// instructions they count.
func (p *boxProcess) callgrindDump(b *testing.B) int64 {
	if p.out == "" {
		b.Fatal("BOXCOST_WRAP needs --callgrind-out-file=FILE")
	}
	before, _ := filepath.Glob(p.out + "*")
	p.callgrind(b, "-d")
	after, _ := filepath.Glob(p.out + "*")
	var dump string
	for _, f := range after {
		if !slices.Contains(before, f) {
			dump = f
		}
	}
	if dump == "" {
		b.Fatalf("no new callgrind dump beside %s", p.out)
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("summary: ")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("callgrind dump %s: %d instructions", dump, n)
			return n
		}
	}
	b.Fatalf("%s has no summary line", dump)
	return 0
}

// procCPU is a process's user and system time (all its threads).
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command's closing parenthesis: utime is the 12th.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// startPerf counts the process's system calls and context switches until
// the returned function is called; nil without perf. perf starts with its
// counters off and turns them on and off when told (--control), so the
// count brackets the measured requests exactly.
func startPerf(b *testing.B, pid int) func() map[string]float64 {
	if _, err := exec.LookPath("perf"); err != nil {
		return nil
	}
	out := filepath.Join(b.TempDir(), "perf.csv")
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	events := "raw_syscalls:sys_enter,context-switches"
	if e := os.Getenv("BOXCOST_PERF_EVENTS"); e != "" {
		events = e // e.g. 'syscalls:sys_enter_futex,syscalls:sys_enter_epoll_pwait'
	}
	args := []string{"stat", "-x,", "-o", out, "-e", events}
	if rec := os.Getenv("BOXCOST_PERF_RECORD"); rec != "" {
		args = []string{"record", "-e", "cpu-clock", "-F", "4000", "-g", "-o", rec} // a profile, kernel included
	}
	cmd := exec.Command("perf", append(args, "-D", "-1", "--control", "fd:3,4", "-p", strconv.Itoa(pid))...)
	cmd.ExtraFiles = []*os.File{ctlR, ackW}
	if err := cmd.Start(); err != nil {
		b.Logf("perf: %v", err)
		return nil
	}
	ctlR.Close()
	ackW.Close()
	ack := bufio.NewReader(ackR)
	tell := func(what string) {
		if _, err := io.WriteString(ctlW, what+"\n"); err != nil {
			b.Fatalf("perf %s: %v", what, err)
		}
		if line, err := ack.ReadString('\n'); err != nil || strings.Trim(line, "\x00\n") != "ack" {
			b.Fatalf("perf %s: %q, %v", what, line, err)
		}
	}
	tell("enable")
	return func() map[string]float64 {
		tell("disable")
		ctlW.Close()
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		ackR.Close()
		data, err := os.ReadFile(out)
		if err != nil {
			return nil // perf record's profile
		}
		m := map[string]float64{}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Split(line, ",")
			if len(f) < 3 {
				continue
			}
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				continue
			}
			name := f[2]
			if short, ok := map[string]string{"raw_syscalls:sys_enter": "syscalls", "context-switches": "ctxsw"}[name]; ok {
				name = short
			}
			m[strings.TrimPrefix(name, "syscalls:sys_enter_")] = v
		}
		return m
	}
}

// BenchmarkLeanHeads: the lean loop's own work on hey's request and
// middlebench server's answer, without sockets: the request head parsed,
// the next hop's head built, the answer's head sorted. Under callgrind
// (two -benchtime counts, their difference) its instructions per request
// are exact, where BenchmarkBoxCost's move with the scheduling.
func BenchmarkLeanHeads(b *testing.B) {
	box := &Box{}
	lc := &leanConn{b: box, remote: "127.0.0.1:40000", remoteHost: "127.0.0.1", hasRemoteHost: true}
	reqHead := []byte(fmt.Sprintf(heyRequest, "127.0.0.1:43001"))
	answer := serverAnswer
	var rd strings.Reader
	br := bufio.NewReaderSize(&rd, 4096)
	for b.Loop() {
		r, err := lc.parse(reqHead)
		if err != nil {
			b.Fatal(err)
		}
		lc.head = lc.appendRequestHead(lc.head[:0], r)
		rd.Reset(answer)
		br.Reset(&rd)
		h, err := readRespHead(br, r, lc.resp[:0])
		if err != nil || h.generic {
			b.Fatalf("%+v, %v", h, err)
		}
		lc.resp = h.lines
	}
}
