package k6path

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// k6ForTest is real k6: $MIDDLEBENCH_K6 or k6 on PATH; the test skips,
// saying so, without one.
func k6ForTest(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MIDDLEBENCH_K6"); p != "" {
		return p
	}
	if p, err := exec.LookPath("k6"); err == nil {
		return p
	}
	t.Skip("no k6: set MIDDLEBENCH_K6 or put k6 on PATH")
	return ""
}

func runShop(t *testing.T, run string, extra ...string) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"run", "--quiet"}, extra...)
	r, err := Run(ctx, Options{
		Experiment: "testdata/shop.yaml", RunName: run, K6: k6ForTest(t), Dir: t.TempDir(),
		Args: append(args, "testdata/shop.js"), Out: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checksOf is the checks metric of k6's summary export: passes, fails.
func checksOf(t *testing.T, r *Result) (passes, fails float64) {
	b, err := os.ReadFile(filepath.Join(r.Dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex struct {
		Metrics map[string]struct {
			Passes *float64 `json:"passes"`
			Fails  *float64 `json:"fails"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	c, ok := ex.Metrics["checks"]
	if !ok || c.Passes == nil || c.Fails == nil {
		t.Fatalf("k6's summary export has no checks: %s", b)
	}
	return *c.Passes, *c.Fails
}

// The demonstration: the user's script unchanged through a
// 100/s fixed-window limiter and a 450 ms WAF. 100 VUs whose iterations
// take ≥ 0.5 s offer more than 100 requests/s, so the limiter answers
// some 429; every count of the boxes must equal k6's.
func TestShopScriptThroughWAFAndLimiter(t *testing.T) {
	r := runShop(t, "waf and limiter", "-e", "VUS=100", "-e", "DURATION=4s")
	if r.ExitCode != 0 {
		t.Fatalf("k6 exited %d: its thresholds (checks rate==1) should pass", r.ExitCode)
	}
	if p, f := checksOf(t, r); p == 0 || f != 0 {
		t.Fatalf("checks: %v passed, %v failed; want all passed", p, f)
	}
	k6Reqs, k6429 := r.Stream.Requests, r.Stream.Statuses["429"]
	if k6Reqs != 2*r.Stream.Iterations {
		t.Errorf("k6: %d requests in %d iterations, want two each", k6Reqs, r.Stream.Iterations)
	}
	stages := r.Path.Boxes[0].Stages
	limiter, waf := stages[0], stages[1]
	t.Logf("k6 %d requests (429×%d); limiter seen %d passed %d 429×%d; waf seen %d p50 %.1f ms; server %d",
		k6Reqs, k6429, limiter.Seen, limiter.Passed, limiter.Rejected["429"], waf.Seen, waf.Delay["med"], r.Server.Requests)
	if limiter.Seen != k6Reqs || limiter.Rejected["429"] != k6429 || k6429 == 0 {
		t.Errorf("limiter seen %d, 429×%d; k6 sent %d, got 429×%d (want equal, 429s > 0)", limiter.Seen, limiter.Rejected["429"], k6Reqs, k6429)
	}
	if waf.Seen != limiter.Passed || waf.Passed != r.Server.Requests || r.Server.Requests != k6Reqs-k6429 {
		t.Errorf("waf seen %d passed %d, limiter passed %d, server %d, k6's non-429 %d: want all equal",
			waf.Seen, waf.Passed, limiter.Passed, r.Server.Requests, k6Reqs-k6429)
	}
	// Every request the limiter passed was held 450 ms by the WAF, then
	// served: k6's waiting for its 200s cannot be shorter.
	if r.Stream.OK == nil || r.Stream.OK.Waiting.Min < 450 {
		t.Errorf("k6's waiting of the expected responses: %+v, want min ≥ 450 ms", r.Stream.OK)
	}
	codes := r.Report.Codes()
	for _, want := range []string{"path-latency", "rate-limited"} {
		if !slices.Contains(codes, want) {
			t.Errorf("findings %v: want %s", codes, want)
		}
	}
}

func TestShopScriptThroughAnEmptyPathIsHealthy(t *testing.T) {
	r := runShop(t, "empty path", "-e", "VUS=10", "-e", "DURATION=2s")
	if r.ExitCode != 0 {
		t.Fatalf("k6 exited %d", r.ExitCode)
	}
	if r.Server.Requests != r.Stream.Requests || r.Stream.Requests == 0 {
		t.Errorf("server %d, k6 %d requests: want equal, > 0", r.Server.Requests, r.Stream.Requests)
	}
	if codes := r.Report.Codes(); !slices.Equal(codes, []string{"healthy"}) {
		t.Errorf("findings %v, want [healthy]", codes)
	}
}

// No k6 is needed: the refusal comes before k6 is looked for (the
// executable given does not exist), and before the server starts.
func TestAThirdPartyHostIsRefusedBeforeK6Runs(t *testing.T) {
	k6 := filepath.Join(t.TempDir(), "no-k6-here")
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	src := "import http from 'k6/http';\nexport default function () {\n  http.get('http://shop.example.com/');\n  http.get('https://tracker.example.net/p');\n}\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, err := Run(context.Background(), Options{
		Experiment: "testdata/shop.yaml", K6: k6, Hosts: []string{"shop.example.com"}, Dir: out,
		Args: []string{"run", script}, Out: io.Discard,
	})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "tracker.example.net") || !strings.Contains(err.Error(), "s.js:4") {
		t.Fatalf("got %v; want a refusal naming tracker.example.net at s.js:4", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("k6's directory exists (%v): k6 must not have run", err)
	}
}

// A script that sets hosts itself would replace the routing (k6 gives the
// script's options precedence over the config file): refused.
func TestAScriptWithItsOwnHostsIsRefused(t *testing.T) {
	k6 := k6ForTest(t)
	script := filepath.Join(t.TempDir(), "s.js")
	src := "import http from 'k6/http';\nexport const options = { hosts: { 'shop.example.com': '10.0.0.1' } };\nexport default function () { http.get('http://shop.example.com/'); }\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Experiment: "testdata/shop.yaml", K6: k6, Args: []string{"run", script}, Out: io.Discard})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "set hosts") {
		t.Fatalf("got %v; want a refusal saying the script sets hosts", err)
	}
}

// A host built at run time is not seen before k6 starts; k6 must still
// keep it from leaving the machine, its name included: no DNS look-up.
// k6's error code says which guard stopped it: 1110 (a blacklisted IP,
// reached without resolving) and not 1100/1101 (a look-up was made).
func TestARunTimeHostIsStoppedWithoutALookUp(t *testing.T) {
	k6 := k6ForTest(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "s.js")
	src := "import http from 'k6/http';\n" +
		"export const options = { iterations: 1, vus: 1 };\n" +
		"export default function () {\n" +
		"  http.get('http://shop.example.com/');\n" +
		"  const name = ['leak', 'example', 'invalid'].join('.');\n" +
		"  http.get(`http://${name}/`, { tags: { name: 'runtime' } });\n" +
		"}\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Run(ctx, Options{Experiment: "testdata/shop.yaml", RunName: "empty path", K6: k6, Dir: filepath.Join(dir, "out"),
		Args: []string{"run", "--quiet", script}, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	codes := errorCodesByName(t, filepath.Join(r.Dir, "points.json"))
	if got := codes["runtime"]; !slices.Equal(got, []string{"1110"}) {
		t.Errorf("the run-time host's error codes %v, want [1110] (blacklisted before any look-up)", got)
	}
	if r.Server.Requests != 1 {
		t.Errorf("server saw %d requests, want the path's 1", r.Server.Requests)
	}
}

// errorCodesByName reads k6's NDJSON and returns each request name's
// http_reqs error codes ("" when it had none).
func errorCodesByName(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		var p struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
			Data   struct {
				Tags map[string]string `json:"tags"`
			} `json:"data"`
		}
		if json.Unmarshal([]byte(line), &p) != nil || p.Type != "Point" || p.Metric != "http_reqs" {
			continue
		}
		name := p.Data.Tags["name"]
		out[name] = append(out[name], p.Data.Tags["error_code"])
	}
	return out
}
