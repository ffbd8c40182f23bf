package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestLedgerFileIsNeverHalfWritten: the ledger file appears, complete, at
// Close; a path that fails to start leaves the previous file as it was.
func TestLedgerFileIsNeverHalfWritten(t *testing.T) {
	up := origin(t)
	file := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(file, []byte("previous\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var bad PathConfig
	if err := yaml.Unmarshal([]byte("ledgerFile: "+file+"\nboxes: [{listen: '"+taken.Addr().String()+"'}]"), &bad); err != nil {
		t.Fatal(err)
	}
	if p, err := Start(t.Context(), bad, up.URL); err == nil {
		p.Close()
		t.Fatal("started on a taken address")
	}
	if b, _ := os.ReadFile(file); string(b) != "previous\n" {
		t.Fatalf("a failed start left the ledger file as %q", b)
	}

	p := startYAMLNoCleanup(t, "ledgerFile: "+file+"\nboxes: [{stages: [{kind: waf, delay: 1ms}]}]", up.URL)
	for range 3 {
		get(t, http.DefaultClient, p.URL()+"/")
	}
	if b, _ := os.ReadFile(file); string(b) != "previous\n" {
		t.Errorf("while the path runs the ledger file is %q, want the previous one", b)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); n++ {
		var e LedgerEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Stage != "waf" {
			t.Fatalf("line %d %q: %v", n+1, sc.Text(), err)
		}
	}
	if n != 3 {
		t.Errorf("%d ledger lines, want one per request (3)", n)
	}
}
