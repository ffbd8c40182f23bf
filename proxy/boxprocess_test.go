package proxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What BenchmarkBoxCost measures the box's process with: the child itself,
// callgrind's counters in it, its CPU time, perf's counts of it.

// peerProcess measures another proxy instead of the box: BOXCOST_PEER is
// "PID ADDR", a process already listening on ADDR in front of
// BOXCOST_ORIGIN (e.g. toxiproxy-server, under valgrind when wrap is).
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
