package k6path

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseK6Args(t *testing.T) {
	a, err := parseK6Args([]string{"run", "-e", "A=1", "--env=B=2", "-eC=3", "-c", "mine.json", "--summary-export", "s.json", "--vus", "3", "x.js"})
	if err != nil {
		t.Fatal(err)
	}
	if a.script != "x.js" || a.config != "mine.json" || a.export != "s.json" || !slices.Equal(a.env, []string{"A=1", "B=2", "C=3"}) {
		t.Fatalf("got %+v", a)
	}
	got := strings.Join(a.with("cfg.json", "exp.json", "p.json"), " ")
	want := "run -e A=1 --env=B=2 -eC=3 --summary-export s.json --vus 3 --config cfg.json --out json=p.json x.js"
	if got != want {
		t.Fatalf("with:\n got %s\nwant %s", got, want)
	}
	for _, bad := range [][]string{nil, {"inspect", "x.js"}, {"run"}, {"run", "x.js", "--vus"}, {"run", "-"}, {"run", "-e", "x.js"}} {
		if _, err := parseK6Args(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestScanScriptFindsHostsOutsideCommentsAndModules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lib.js", "export const other = 'https://api.example.com:8443/v1';\n")
	main := write("main.js", `import http from 'k6/http';
import { uuid } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';
import { other } from './lib.js';
// see http://docs.example.org/ for the API
/* http://old.example.org/ */
const base = "http://Shop.Example.com";
const url = `+"`https://${host}/x`"+`;
const s = 'not // a comment http://third.example.net/t';
`)
	got, err := scanScript(main, []string{"BASE=http://env.example.com:8080/", "N=3"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, tg := range got {
		seen = append(seen, tg.String()+" "+filepath.Base(tg.Where))
	}
	want := []string{
		"http://shop.example.com:80 main.js:6",
		"http://third.example.net:80 main.js:8",
		"https://api.example.com:8443 lib.js:1",
		"http://env.example.com:8080 -e BASE",
	}
	if !slices.Equal(seen, want) {
		t.Fatalf("got  %q\nwant %q", seen, want)
	}
}

func TestPlanRouteRefusesOtherHostsAndSchemes(t *testing.T) {
	shop := target{Scheme: "http", Host: "shop.example.com", Port: "80", Where: "s.js:3"}
	third := target{Scheme: "http", Host: "third.example.net", Port: "80", Where: "s.js:9"}
	tlsShop := target{Scheme: "https", Host: "shop.example.com", Port: "443", Where: "s.js:4"}
	for _, c := range []struct {
		name    string
		targets []target
		named   []string
		entry   string
		hosts   []string // want routed, or nil for a refusal
		says    string   // the refusal names
	}{
		{"one host", []target{shop, shop}, nil, "http://127.0.0.1:9", []string{"shop.example.com"}, ""},
		{"third party", []target{shop, third}, []string{"shop.example.com"}, "http://127.0.0.1:9", nil, "s.js:9 targets third.example.net"},
		{"two hosts unnamed", []target{shop, third}, nil, "http://127.0.0.1:9", nil, "third.example.net"},
		{"none written", nil, nil, "http://127.0.0.1:9", nil, "--host"},
		{"named, none written", nil, []string{"API.example.com"}, "http://127.0.0.1:9", []string{"api.example.com"}, ""},
		{"https to a plain entry", []target{tlsShop}, nil, "http://127.0.0.1:9", nil, "s.js:4 speaks https"},
		{"https to a tls entry", []target{tlsShop}, nil, "https://127.0.0.1:9", []string{"shop.example.com"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := planRoute(c.targets, c.named, c.entry)
			if c.hosts != nil {
				if err != nil || !slices.Equal(r.Hosts, c.hosts) {
					t.Fatalf("got %v, %v; want %v", r, err, c.hosts)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v; want a refusal saying %q", err, c.says)
			}
		})
	}
}

func TestWriteConfigMergesTheUsersOwn(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(user, []byte(`{"hosts":{"cdn.example.com":"127.0.0.2"},"userAgent":"mine/1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := planRoute(nil, []string{"shop.example.com"}, "https://127.0.0.1:4431")
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.writeConfig(user, dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	hosts := cfg["hosts"].(map[string]any)
	if hosts["shop.example.com"] != "127.0.0.1:4431" || hosts["cdn.example.com"] != "127.0.0.2" || cfg["userAgent"] != "mine/1" || cfg["insecureSkipTLSVerify"] != true {
		t.Fatalf("config %s", b)
	}
	// Each mapped name with its ports (k6 matches "host:port" first, and
	// "*" would take it), every other name to the blacklisted address.
	for k, want := range map[string]string{
		"shop.example.com:80": "127.0.0.1:4431", "shop.example.com:443": "127.0.0.1:4431",
		"cdn.example.com:80": "127.0.0.2:80", "cdn.example.com:443": "127.0.0.2:443", "*": "0.0.0.0",
	} {
		if hosts[k] != want {
			t.Errorf("hosts[%q] = %v, want %s", k, hosts[k], want)
		}
	}
	if _, err := r.writeConfig(filepath.Join(dir, "missing.json"), dir); err == nil {
		t.Fatal("a missing --config: want an error")
	}
}
