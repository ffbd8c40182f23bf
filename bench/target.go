package bench

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/proxy"
	"github.com/middlebench/middlebench/wire"
)

// target is what a run's load is aimed at: the fake server, behind the
// run's path or not, in this process or in a pinned child.
type target interface {
	entry() string // the URL the load goes to
	serverURL() string
	serverView(ctx context.Context) (timing.ServerView, error)
	pathStats(ctx context.Context) (*proxy.PathStats, error) // nil without a path
	close() error
}

// serveInfo is what a serving process tells its parent, as one JSON line.
type serveInfo struct {
	Entry  string `json:"entry"`
	Server string `json:"server"`
	Admin  string `json:"admin,omitempty"` // the path's admin endpoint
	Gen    string `json:"gen,omitempty"`   // the wire's generator namespace: load from there
}

// localTarget runs the server and the path in this process.
type localTarget struct {
	srv  *fakeserver.Server
	path *proxy.Path
}

func startLocal(ctx context.Context, srvCfg fakeserver.Config, pathCfg *proxy.PathConfig, withAdmin bool) (*localTarget, error) {
	srvCfg.Listen = "127.0.0.1:0"
	srv, err := fakeserver.Start(ctx, srvCfg)
	if err != nil {
		return nil, err
	}
	t := &localTarget{srv: srv}
	if pathCfg != nil {
		cfg := *pathCfg
		cfg.Log = nil
		if withAdmin {
			cfg.Admin = "127.0.0.1:0"
		}
		for i := range cfg.Boxes {
			cfg.Boxes[i].Listen = "127.0.0.1:0" // fixed ports would collide between runs
			cfg.Boxes[i].Admin = ""
		}
		p, err := proxy.Start(ctx, cfg, srv.URL())
		if err != nil {
			_ = srv.Close()
			return nil, err
		}
		t.path = p
	}
	return t, nil
}

func (t *localTarget) entry() string {
	if t.path != nil {
		return t.path.URL()
	}
	return t.srv.URL()
}

func (t *localTarget) serverURL() string { return t.srv.URL() }

func (t *localTarget) info() serveInfo {
	i := serveInfo{Entry: t.entry(), Server: t.srv.URL(), Gen: t.genNamespace()}
	if t.path != nil {
		if a := t.path.AdminURLs(); len(a) > 0 {
			i.Admin = a[0]
		}
	}
	return i
}

func (t *localTarget) serverView(context.Context) (timing.ServerView, error) {
	return t.srv.Stats(), nil
}

func (t *localTarget) pathStats(context.Context) (*proxy.PathStats, error) {
	if t.path == nil {
		return nil, nil
	}
	s := t.path.Stats()
	return &s, nil
}

func (t *localTarget) close() error {
	var err error
	if t.path != nil {
		err = t.path.Close()
	}
	return errors.Join(err, t.srv.Close())
}

// childTarget is a serving child process of this binary, pinned to its
// own CPUs; its views are read over its admin endpoints.
type childTarget struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	info   serveInfo
	gen    *wire.Namespace // the child's wire's generator side, opened once (openGen)
	client *http.Client
	stderr strings.Builder
}

// startChild runs this binary as a serving child (see ServeChild) on cpus
// and waits for the line that says where it serves.
func startChild(ctx context.Context, cpus []int, env []string) (*childTarget, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("isolate: %w", err)
	}
	// The child serves on loopback with its own self-signed certificate.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	t := &childTarget{client: &http.Client{Timeout: 10 * time.Second, Transport: tr}}
	t.cmd = exec.Command(exe)
	t.cmd.Stderr = &t.stderr
	t.cmd.Env = append(os.Environ(), env...)
	if t.stdin, err = t.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("isolate: %w", err)
	}
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("isolate: %w", err)
	}
	if err := startPinned(t.cmd, cpus); err != nil {
		return nil, fmt.Errorf("isolate: start %s: %w", exe, err)
	}
	line := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if !sc.Scan() {
			line <- fmt.Errorf("the serving process said nothing")
			return
		}
		line <- json.Unmarshal(sc.Bytes(), &t.info)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case err = <-line:
	case <-time.After(30 * time.Second):
		err = fmt.Errorf("the serving process did not start within 30s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		err = t.openGen()
	}
	if err != nil {
		_ = t.close()
		return nil, fmt.Errorf("isolate: %w (%s)", err, strings.TrimSpace(t.stderr.String()))
	}
	return t, nil
}

func (t *childTarget) entry() string     { return t.info.Entry }
func (t *childTarget) serverURL() string { return t.info.Server }

func (t *childTarget) serverView(ctx context.Context) (timing.ServerView, error) {
	var v timing.ServerView
	return v, t.getJSON(ctx, t.info.Server+"/_mb/stats", &v)
}

func (t *childTarget) pathStats(ctx context.Context) (*proxy.PathStats, error) {
	if t.info.Admin == "" {
		return nil, nil
	}
	var s proxy.PathStats
	return &s, t.getJSON(ctx, t.info.Admin+"/stats", &s)
}

func (t *childTarget) getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return fmt.Errorf("isolate: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("isolate: GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// close ends the child by closing its stdin, as it waits for, and kills it
// if it has not gone within 15 s.
func (t *childTarget) close() error {
	if t.gen != nil {
		_ = t.gen.Close()
	}
	_ = t.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- t.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		_ = t.cmd.Process.Kill()
		return fmt.Errorf("isolate: the serving process did not stop; killed")
	}
}
