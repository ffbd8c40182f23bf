package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestChainedPath: client → firewall (bytes) → tls terminator (HTTP, with
// waf) → lb (ratelimit) → origin; each box its own port and counters; the
// admin endpoint serves JSON, Prometheus and the ledger.
func TestChainedPath(t *testing.T) {
	up := origin(t)
	ledgerFile := filepath.Join(t.TempDir(), "ledger.jsonl")
	p := startYAML(t, `
seed: 1
admin: 127.0.0.1:0
ledgerHeader: true
ledgerFile: `+ledgerFile+`
boxes:
  - name: firewall
    stages:
      - kind: accept
        backlog: 64
  - name: device
    admin: 127.0.0.1:0
    stages:
      - kind: tls
      - kind: waf
        delay: 20ms
  - name: lb
    stages:
      - kind: ratelimit
        rate: 1000/s
`, up.URL)
	boxes := p.Boxes()
	if len(boxes) != 3 || !strings.HasPrefix(p.URL(), "https://") || boxes[0].Mode() != ModeBytes || boxes[1].Mode() != ModeHTTP {
		t.Fatalf("url %s, boxes %v", p.URL(), boxes)
	}
	seen := map[string]bool{}
	for _, b := range boxes {
		if seen[b.Addr()] {
			t.Fatalf("two boxes on %s", b.Addr())
		}
		seen[b.Addr()] = true
	}
	// The firewall passes TLS through to the device; trust the device's cert.
	c := tlsClient(p, true, false)
	c.Transport.(*http.Transport).TLSClientConfig.RootCAs = boxes[1].pool
	for range 5 {
		resp, _ := get(t, c, p.URL()+"/?work=5ms")
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Server-Timing"), `waf;dur=`) {
			t.Fatalf("status %d, Server-Timing %q", resp.StatusCode, resp.Header.Get("Server-Timing"))
		}
	}
	stats := p.Stats()
	if stats.Boxes[1].Requests != 5 || stats.Boxes[2].Requests != 5 || stats.Boxes[2].Stages[0].Passed != 5 {
		t.Fatalf("stats %+v", stats)
	}
	if _, err := json.Marshal(stats); err != nil {
		t.Fatal(err)
	}
	urls := p.AdminURLs()
	if len(urls) != 2 {
		t.Fatalf("admin urls %v", urls)
	}
	_, body := get(t, http.DefaultClient, urls[0]+"/stats")
	var decoded PathStats
	if err := json.Unmarshal([]byte(body), &decoded); err != nil || len(decoded.Boxes) != 3 {
		t.Fatalf("/stats: %v %s", err, body)
	}
	_, body = get(t, http.DefaultClient, urls[1]+"/stats")
	if err := json.Unmarshal([]byte(body), &decoded); err != nil || len(decoded.Boxes) != 1 || decoded.Boxes[0].Name != "device" {
		t.Fatalf("box /stats: %v %s", err, body)
	}
	_, body = get(t, http.DefaultClient, urls[0]+"/metrics")
	contains(t, body, `middlebench_stage_seen_total{box="lb",kind="ratelimit",stage="1"} 5`,
		`middlebench_stage_delay_seconds{box="device",kind="waf",stage="2",quantile="0.5"} 0.02`,
		`middlebench_box_requests_total{box="device"} 5`)
	_, body = get(t, http.DefaultClient, urls[0]+"/ledger?box=device")
	if n := strings.Count(body, "\n"); n != 5 || !strings.Contains(body, `"askedMs":20`) {
		t.Fatalf("/ledger: %d lines\n%s", n, body)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(ledgerFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var e LedgerEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Box != "device" {
			t.Fatalf("ledger line %q: %v", sc.Text(), err)
		}
	}
	if lines != 5 {
		t.Fatalf("ledger file has %d lines, want 5", lines)
	}
}

// TestHTTPBoxToTLSBox: an HTTP box forwards over TLS to a box that
// terminates it, trusting that box's certificate.
func TestHTTPBoxToTLSBox(t *testing.T) {
	up := origin(t)
	p := startYAML(t, "boxes:\n  - stages: [{kind: waf}]\n  - stages: [{kind: tls}, {kind: waf}]\n", up.URL)
	if !strings.HasPrefix(p.URL(), "http://") || !strings.HasPrefix(p.Boxes()[1].URL(), "https://") {
		t.Fatalf("urls %s %s", p.URL(), p.Boxes()[1].URL())
	}
	if resp, _ := get(t, http.DefaultClient, p.URL()); resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func TestStartErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tt := range []struct {
		name     string
		cfg      PathConfig
		upstream string
		want     string
	}{
		{"bad upstream", PathConfig{Boxes: []BoxConfig{{}}}, "ftp://x", "upstream"},
		{"no boxes", PathConfig{}, "http://127.0.0.1:1", "at least one box"},
		{"invalid spec", PathConfig{Boxes: []BoxConfig{{Stages: []StageConfig{{Kind: "waf", Spec: &WAFConfig{MaxConcurrent: -1}}}}}}, "http://127.0.0.1:1", "maxConcurrent"},
		{"port taken", PathConfig{Boxes: []BoxConfig{{Listen: taken.Addr().String()}}}, "http://127.0.0.1:1", "listen"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(context.Background(), tt.cfg, tt.upstream)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestContextClosesPath: cancelling Start's context closes the boxes.
func TestContextClosesPath(t *testing.T) {
	up := origin(t)
	ctx, cancel := context.WithCancel(context.Background())
	var cfg PathConfig
	if err := yaml.Unmarshal([]byte("boxes: [{}]"), &cfg); err != nil {
		t.Fatal(err)
	}
	p, err := Start(ctx, cfg, up.URL)
	if err != nil {
		t.Fatal(err)
	}
	addr := p.Boxes()[0].Addr()
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := http.Get("http://" + addr); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("box still answers after its context ended")
}
