package k6script

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
)

// seenRequest is what a generator sent, as the server saw it.
type seenRequest struct {
	Method, URI, UA, Header, Body string
	Len                           int
}

// recorder is a server that keeps what each request carried and answers
// with the server-time entries a generator must read.
func recorder(t *testing.T) (*httptest.Server, func() []seenRequest) {
	var mu sync.Mutex
	var seen []seenRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(b)
		mu.Lock()
		seen = append(seen, seenRequest{r.Method, r.RequestURI, r.UserAgent(), r.Header.Get("X-Test"), hex.EncodeToString(sum[:8]), len(b)})
		mu.Unlock()
		w.Header().Set("Server-Timing", "app;dur=12.5, queue;dur=3.25, read;dur=0")
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// TestK6ScriptSendsWhatTheEngineSends runs one run with the engine and with
// real k6 (when the machine has it) against a recording server: the same
// method, URL, headers, User-Agent and body byte for byte, and k6 reads the
// same server time from Server-Timing.
func TestK6ScriptSendsWhatTheEngineSends(t *testing.T) {
	k6 := k6ForTest()
	if k6 == "" {
		t.Skip("no k6: set MIDDLEBENCH_K6 or put k6 on PATH; the k6 side cannot run")
	}
	src := `title: same work
runs:
  - name: upload
    load:
      executor: per-vu-iterations
      vus: 1
      iterations: 2
      method: POST
      url: /p?q=1
      bodySize: 70000
      userAgent: ua/1
      headers: {X-Test: "yes"}
`
	e, err := experiment.Parse([]byte(src), false)
	if err != nil {
		t.Fatal(err)
	}
	e.ID, e.File = "same", "same.yaml"
	srv, seen := recorder(t)

	cfg, err := e.Runs[0].Load.Aim(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := load.Run(t.Context(), cfg, load.Options{}); err != nil {
		t.Fatal(err)
	}
	engine := seen()

	scripts, err := Scripts(e, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, export := filepath.Join(dir, "run.js"), filepath.Join(dir, "summary.json")
	if err := os.WriteFile(script, scripts[0].Src, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), k6, "run", "--quiet", "--no-usage-report", "-e", "TARGET="+srv.URL, "--summary-export", export, script).CombinedOutput()
	if err != nil {
		t.Fatalf("k6: %v\n%s", err, out)
	}
	k6Seen := seen()[len(engine):]

	want := seenRequest{Method: "POST", URI: "/p?q=1", UA: "ua/1", Header: "yes", Len: 70000}
	if len(engine) != 2 || len(k6Seen) != 2 {
		t.Fatalf("engine sent %d requests, k6 %d: want 2 each", len(engine), len(k6Seen))
	}
	for i := range engine {
		e, k := engine[i], k6Seen[i]
		want.Body = e.Body
		if e != want || k != want {
			t.Errorf("request %d:\n engine %+v\n k6     %+v\n want   %+v", i, e, k, want)
		}
	}
	var sum struct {
		Metrics map[string]map[string]float64 `json:"metrics"`
	}
	b, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if st, q := sum.Metrics["server_time"]["avg"], sum.Metrics["server_queue"]["avg"]; st != 12.5 || q != 3.25 {
		t.Errorf("k6 read server_time %v and server_queue %v, want 12.5 and 3.25 from Server-Timing", st, q)
	}
}
