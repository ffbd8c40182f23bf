package proxy

import (
	"crypto/subtle"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/middlebench/middlebench/proxy/internal/exchange"
)

// DefaultUAPatterns returns the User-Agents of load tools that security
// devices commonly block: k6 (Grafana k6/…), middlebench's own engine,
// JMeter, Gatling, Locust, Artillery, wrk, hey, ApacheBench, vegeta,
// fortio, and the default agents of curl, Wget, Go and python-requests.
// Each call returns a new slice.
func DefaultUAPatterns() []string {
	return []string{
		`^Grafana k6/`, `^k6/`, `^middlebench/`, `(?i)jmeter`, `(?i)gatling`, `(?i)locust`, `(?i)artillery`,
		`^wrk`, `^hey/`, `^ApacheBench/`, `(?i)^vegeta`, `(?i)^fortio`,
		`^curl/`, `^Wget/`, `^Go-http-client/`, `^python-requests/`,
	}
}

// UABlockConfig blocks requests by User-Agent, except those that carry the
// agreed test header or come from allowed addresses — the exception the
// article recommends agreeing with the security team for a test window.
type UABlockConfig struct {
	Patterns    []string `yaml:"patterns"`    // regular expressions (default DefaultUAPatterns)
	BlockEmpty  bool     `yaml:"blockEmpty"`  // also block requests without a User-Agent
	Status      int      `yaml:"status"`      // default 403
	Body        string   `yaml:"body"`        // default a one-line notice
	AllowHeader string   `yaml:"allowHeader"` // test header name …
	AllowValue  string   `yaml:"allowValue"`  // … and its secret value
	AllowIPs    []string `yaml:"allowIPs"`    // addresses or CIDRs let through
}

// Kind is "uablock".
func (*UABlockConfig) Kind() string { return "uablock" }

func (c *UABlockConfig) compile() (Stage, error) {
	if (c.AllowHeader == "") != (c.AllowValue == "") {
		return nil, errField("allowHeader", "allowHeader and allowValue go together")
	}
	pats := c.Patterns
	if len(pats) == 0 {
		pats = DefaultUAPatterns()
	}
	re, err := matchAny("patterns", pats)
	if err != nil {
		return nil, err
	}
	nets, err := parseNets(c.AllowIPs)
	if err != nil {
		return nil, err
	}
	if err := checkStatus("status", c.Status); err != nil {
		return nil, err
	}
	return &uaBlockStage{cfg: *c, re: re, nets: nets,
		deny: newRejection(c.Status, c.Body, http.StatusForbidden, "middlebench uablock: forbidden\n")}, nil
}

func parseNets(items []string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for i, s := range items {
		if !strings.Contains(s, "/") {
			ip := net.ParseIP(s)
			if ip == nil {
				return nil, errField("allowIPs", "item %d %q is not an IP address or CIDR", i+1, s)
			}
			bits := 32
			if ip.To4() == nil {
				bits = 128
			}
			out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, errField("allowIPs", "item %d %q is not an IP address or CIDR", i+1, s)
		}
		out = append(out, n)
	}
	return out, nil
}

type uaBlockStage struct {
	bound
	cfg  UABlockConfig
	re   *regexp.Regexp
	nets []*net.IPNet
	deny rejection

	allowedByHeader, allowedByIP atomic.Int64
}

func (s *uaBlockStage) extraCounts() map[string]int64 {
	return map[string]int64{"allowedByHeader": s.allowedByHeader.Load(), "allowedByIP": s.allowedByIP.Load()}
}

func (s *uaBlockStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		var ua string // r.UserAgent(), without canonicalising its key every time
		if v := r.Header["User-Agent"]; len(v) > 0 {
			ua = v[0]
		}
		if (ua == "" && !s.cfg.BlockEmpty) || (ua != "" && !s.re.MatchString(ua)) {
			s.c.passed.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		ex := exchange.From(r.Context())
		if why := s.exception(r); why != "" {
			s.c.passed.Add(1)
			s.env.record(LedgerEntry{Conn: ex.Conn, Req: ex.Req, Action: ActAllowed, Note: "User-Agent " + ua + " let through by " + why})
			next.ServeHTTP(w, r)
			return
		}
		s.c.reject(s.deny.status)
		s.env.record(LedgerEntry{Conn: ex.Conn, Req: ex.Req, Action: ActRejected, Status: s.deny.status, Note: "User-Agent " + ua})
		s.deny.send(w)
	})
}

// instant: the stage passes or refuses every request at once.
func (s *uaBlockStage) instant(*http.Request) bool { return true }

// exception says why a blocked agent is let through ("" if it is not).
func (s *uaBlockStage) exception(r *http.Request) string {
	if s.cfg.AllowHeader != "" {
		if v := r.Header.Get(s.cfg.AllowHeader); v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(s.cfg.AllowValue)) == 1 {
			s.allowedByHeader.Add(1)
			return "the allow-list header"
		}
	}
	if len(s.nets) > 0 {
		if ip := clientIP(r); ip != nil {
			for _, n := range s.nets {
				if n.Contains(ip) {
					s.allowedByIP.Add(1)
					return "the allow-listed address " + ip.String()
				}
			}
		}
	}
	return ""
}
