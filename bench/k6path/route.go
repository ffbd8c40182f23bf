package k6path

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// ErrRefused is a script that cannot go through the path unchanged: a
// host that is not the path's, a scheme the path's entry does not speak,
// options of its own that would undo the routing. Nothing was sent.
var ErrRefused = fmt.Errorf("refused before k6 started; nothing was sent")

// outsideLoopback is every address but IPv4's loopback, for k6's
// blacklistIPs: a host built at run time cannot leave the machine.
var outsideLoopback = []string{
	"0.0.0.0/2", "64.0.0.0/3", "96.0.0.0/4", "112.0.0.0/5", "120.0.0.0/6",
	"124.0.0.0/7", "126.0.0.0/8", "128.0.0.0/1", "::/0",
}

// unroutable is where k6's hosts option sends every name that is not the
// path's: an address outsideLoopback holds, so k6 fails the request with
// its error code 1110 (a blacklisted IP) instead of resolving the name.
const unroutable = "0.0.0.0"

// route is how a script's requests reach the path.
type route struct {
	Hosts []string // the hosts the path stands for
	Ports []string // 80, 443 and every port the script writes
	Entry *url.URL // the path's first box
}

// planRoute decides which hosts the path stands for (pickHosts) and
// refuses a target of the path's whose scheme the entry does not speak.
func planRoute(targets []target, named []string, entry string) (*route, error) {
	hosts, err := pickHosts(targets, named)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(entry)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if t.Scheme != u.Scheme {
			return nil, fmt.Errorf("%w: %s speaks %s to %s, but the path's first box speaks %s (%s)",
				ErrRefused, t.Where, t.Scheme, t.Host, u.Scheme, map[string]string{
					"http":  "it has no tls stage",
					"https": "its tls stage terminates TLS",
				}[u.Scheme])
		}
	}
	ports := []string{"80", "443"}
	for _, t := range targets {
		if !slices.Contains(ports, t.Port) {
			ports = append(ports, t.Port)
		}
	}
	return &route{Hosts: hosts, Ports: ports, Entry: u}, nil
}

// pickHosts is the hosts the path stands for — named, or the one host
// the script targets — and refuses any other target the script names.
func pickHosts(targets []target, named []string) ([]string, error) {
	var hosts []string
	for _, h := range named {
		hosts = append(hosts, strings.ToLower(h))
	}
	if len(hosts) == 0 {
		var where []string
		for _, t := range targets {
			if !slices.Contains(hosts, t.Host) {
				hosts = append(hosts, t.Host)
				where = append(where, fmt.Sprintf("%s (%s)", t, t.Where))
			}
		}
		switch len(hosts) {
		case 0:
			return nil, fmt.Errorf("%w: the script writes no URL with its host in it; name the host the path stands for with --host", ErrRefused)
		case 1:
		default:
			return nil, fmt.Errorf("%w: the script targets %d hosts: %s; a path stands for the hosts --host names, and the others are refused",
				ErrRefused, len(hosts), strings.Join(where, ", "))
		}
	}
	for _, t := range targets {
		if !slices.Contains(hosts, t.Host) {
			return nil, fmt.Errorf("%w: %s targets %s, which is not the path's (%s)", ErrRefused, t.Where, t.Host, strings.Join(hosts, ", "))
		}
	}
	return hosts, nil
}

// writeConfig writes the k6 config file that routes the path's hosts to
// its entry: the user's own config (given, or k6's default file when it
// exists) with `hosts` added, and insecureSkipTLSVerify for a TLS entry,
// whose certificate is the loopback's own.
func (r *route) writeConfig(userConfig, dir string) (string, error) {
	cfg := map[string]any{}
	if userConfig == "" {
		if d, err := os.UserConfigDir(); err == nil {
			if def := filepath.Join(d, "k6", "config.json"); fileExists(def) {
				userConfig = def
			}
		}
	}
	if userConfig != "" {
		b, err := os.ReadFile(userConfig)
		if err != nil {
			return "", fmt.Errorf("k6 --config: %w", err)
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return "", fmt.Errorf("k6 --config %s: %w", userConfig, err)
		}
	}
	hosts, _ := cfg["hosts"].(map[string]any)
	if hosts == nil {
		hosts = map[string]any{}
	}
	for _, h := range r.Hosts {
		hosts[h] = r.Entry.Host
	}
	r.guardNames(hosts)
	cfg["hosts"] = hosts
	if r.Entry.Scheme == "https" {
		cfg["insecureSkipTLSVerify"] = true
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "k6-config.json")
	return path, atomicfile.WriteBytes(path, b)
}

// guardNames sends every name hosts does not map — one built at run time,
// which the scan cannot see — to an address blacklistIPs refuses, so k6
// resolves no name and no look-up leaves the machine (k6 reads hosts
// before its resolver). k6 matches "host:port" before "host", and "*"
// matches any "host:port", so each mapped name is given its ports too: a
// port-less value then takes the port (k6 keeps a requested port only
// for a port-less key).
func (r *route) guardNames(hosts map[string]any) {
	for _, k := range slices.Collect(maps.Keys(hosts)) {
		if _, _, err := net.SplitHostPort(k); err == nil {
			continue
		}
		v, ok := hosts[k].(string)
		if !ok {
			continue // not k6's: k6 says so
		}
		for _, p := range r.Ports {
			if _, set := hosts[k+":"+p]; set {
				continue
			}
			if _, _, err := net.SplitHostPort(v); err == nil {
				hosts[k+":"+p] = v
			} else {
				hosts[k+":"+p] = net.JoinHostPort(v, p)
			}
		}
	}
	hosts["*"] = unroutable
}

// blacklistEnv is K6_BLACKLIST_IPS: the user's own, and every address but
// loopback's.
func blacklistEnv(user string) string {
	v := slices.Clone(outsideLoopback)
	if user != "" {
		v = append(strings.Split(user, ","), v...)
	}
	return "K6_BLACKLIST_IPS=" + strings.Join(v, ",")
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
