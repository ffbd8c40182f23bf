//go:build linux

package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/leaktest"
)

// The soak (make soak, not make test): 10,000 keep-alive connections
// through one HTTP box for 60 s, each sending a GET every 5 s (2,000
// requests/s in all). The clients run in a child process (this test
// binary again), so that neither process needs more than the machine's
// 20,000 descriptors. The box must answer every request, its RSS stay
// bounded, and its descriptors return to the baseline after.
const (
	soakConns  = 10_000
	soakFor    = 60 * time.Second
	soakPeriod = 5 * time.Second
)

type soakResult struct {
	Conns, Requests, Errors int
	FirstError              string
}

func TestSoak(t *testing.T) {
	if os.Getenv("MIDDLEBENCH_SOAK") == "" {
		t.Skip("the soak runs with make soak (MIDDLEBENCH_SOAK=1)")
	}
	raiseNoFile(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer up.Close()
	warm := &http.Client{Transport: &http.Transport{}}
	get(t, warm, up.URL)
	warm.CloseIdleConnections()
	verify := leaktest.Check(t)
	fdsBefore := leaktest.OpenFDs(t)
	p := startYAMLNoCleanup(t, "boxes: [{name: soak, stages: [{kind: waf}]}]", up.URL)

	child := exec.Command(os.Args[0], "-test.run=^TestSoakClients$", "-test.v")
	child.Env = append(os.Environ(), "MIDDLEBENCH_SOAK_BOX="+strings.TrimPrefix(p.URL(), "http://"))
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var maxRSS, maxActive, maxFDs int64
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
			maxRSS = max(maxRSS, rssBytes(t))
			maxActive = max(maxActive, p.Stats().Boxes[0].Active)
			maxFDs = max(maxFDs, int64(leaktest.OpenFDs(t)))
		}
	}()
	var res soakResult
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "SOAK "); ok {
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := child.Wait(); err != nil {
		t.Errorf("clients: %v", err)
	}
	close(stopSampling)
	<-sampled
	s := p.Stats().Boxes[0]
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	verify()
	t.Logf("soak: %d connections for %v: %d requests, %d errors (first: %q); box: %d requests, %d upstream errors, %d client aborts, at most %d connections open; RSS at most %.1f MiB; fds %d before, at most %d, %d after close",
		res.Conns, soakFor, res.Requests, res.Errors, res.FirstError, s.Requests, s.UpstreamErrors+s.UpstreamTimeouts, s.ClientAborts, maxActive,
		float64(maxRSS)/(1<<20), fdsBefore, maxFDs, leaktest.OpenFDs(t))
	if res.Conns != soakConns || res.Errors != 0 || res.Requests == 0 {
		t.Errorf("clients: %d connections, %d requests, %d errors (first %q); want %d connections and no error", res.Conns, res.Requests, res.Errors, res.FirstError, soakConns)
	}
	if maxActive < soakConns {
		t.Errorf("at most %d connections open at the box, want %d", maxActive, soakConns)
	}
	// The bound: 64 KiB of buffers per client connection at most (net/http's
	// 4 + 4 KiB, goroutine stacks, the upstream pool's 1,024 × 64 KiB) plus
	// 256 MiB for the rest of the process.
	if limit := int64(soakConns)*64<<10 + 256<<20; maxRSS > limit {
		t.Errorf("RSS reached %.1f MiB, above the %.1f MiB bound", float64(maxRSS)/(1<<20), float64(limit)/(1<<20))
	}
}

// TestSoakClients is the soak's client side, run by TestSoak in a child.
func TestSoakClients(t *testing.T) {
	addr := os.Getenv("MIDDLEBENCH_SOAK_BOX")
	if addr == "" {
		t.Skip("run by TestSoak")
	}
	raiseNoFile(t)
	var requests, errs atomic.Int64
	var first atomic.Pointer[string]
	fail := func(err error) {
		errs.Add(1)
		msg := err.Error()
		first.CompareAndSwap(nil, &msg)
	}
	conns := make([]net.Conn, 0, soakConns)
	for range soakConns {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			fail(err)
			break
		}
		conns = append(conns, c)
	}
	end := time.Now().Add(soakFor)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			defer c.Close()
			br := bufio.NewReaderSize(c, 1024)
			time.Sleep(time.Duration(i) * soakPeriod / soakConns) // spread the connections over a period
			for time.Now().Before(end) {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := io.WriteString(c, "GET /?c="+strconv.Itoa(i)+" HTTP/1.1\r\nHost: soak\r\n\r\n"); err != nil {
					fail(err)
					return
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					fail(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Errorf("status %s", resp.Status))
				}
				requests.Add(1)
				time.Sleep(soakPeriod)
			}
		})
	}
	wg.Wait()
	res := soakResult{Conns: len(conns), Requests: int(requests.Load()), Errors: int(errs.Load())}
	if f := first.Load(); f != nil {
		res.FirstError = *f
	}
	b, _ := json.Marshal(res)
	fmt.Printf("SOAK %s\n", b)
}

// raiseNoFile lifts the descriptor limit to its hard maximum.
func raiseNoFile(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	l.Cur = l.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur < soakConns+2048 {
		t.Skipf("RLIMIT_NOFILE hard limit %d: the soak needs %d", l.Max, soakConns+2048)
	}
}

// rssBytes reads this process's resident set size.
func rssBytes(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
