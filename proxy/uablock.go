package proxy

import (
	"crypto/subtle"
	"net"
	"net/http"
	"regexp"
	"strings"
)

// DefaultUAPatterns are the User-Agents of load tools that security
// devices commonly block: k6 (Grafana k6/…), middlebench's own engine,
// JMeter, Gatling, Locust, Artillery, wrk, hey, ApacheBench, vegeta,
// fortio, and the default agents of curl, Wget, Go and python-requests.
var DefaultUAPatterns = []string{
	`^Grafana k6/`, `^k6/`, `^middlebench/`, `(?i)jmeter`, `(?i)gatling`, `(?i)locust`, `(?i)artillery`,
	`^wrk`, `^hey/`, `^ApacheBench/`, `(?i)^vegeta`, `(?i)^fortio`,
	`^curl/`, `^Wget/`, `^Go-http-client/`, `^python-requests/`,
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
func (*UABlockConfig) isHTTP()      {}

func (c *UABlockConfig) validate() error {
	if (c.AllowHeader == "") != (c.AllowValue == "") {
		return errField("allowHeader", "allowHeader and allowValue go together")
	}
	if _, err := c.matcher(); err != nil {
		return err
	}
	if _, err := parseNets(c.AllowIPs); err != nil {
		return err
	}
	return checkStatus("status", c.Status)
}

func (c *UABlockConfig) matcher() (*regexp.Regexp, error) {
	pats := c.Patterns
	if len(pats) == 0 {
		pats = DefaultUAPatterns
	}
	if _, err := compileAll("patterns", pats); err != nil {
		return nil, err
	}
	return regexp.Compile("(?:" + strings.Join(pats, ")|(?:") + ")")
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
	cfg  UABlockConfig
	env  *stageEnv
	c    *counters
	re   *regexp.Regexp
	nets []*net.IPNet
	deny rejection
}

func (c *UABlockConfig) build(env *stageEnv) (Stage, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	re, _ := c.matcher()
	nets, _ := parseNets(c.AllowIPs)
	s := &uaBlockStage{cfg: *c, env: env, re: re, nets: nets,
		deny: newRejection(c.Status, c.Body, http.StatusForbidden, "middlebench uablock: forbidden\n")}
	s.c = newCounters("uablock", env.index, "allowedByHeader", "allowedByIP")
	env.c = s.c
	return s, nil
}

func (s *uaBlockStage) Stats() StageStats { return s.c.stats() }

func (s *uaBlockStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		ua := r.UserAgent()
		if (ua == "" && !s.cfg.BlockEmpty) || (ua != "" && !s.re.MatchString(ua)) {
			s.c.passed.Add(1)
			next.ServeHTTP(w, r)
			return
		}
		ex := exchangeFrom(r.Context())
		if why := s.exception(r); why != "" {
			s.c.passed.Add(1)
			s.env.record(LedgerEntry{Conn: ex.conn, Req: ex.req, Action: ActAllowed, Note: "User-Agent " + ua + " let through by " + why})
			next.ServeHTTP(w, r)
			return
		}
		s.c.reject(s.deny.status)
		s.env.record(LedgerEntry{Conn: ex.conn, Req: ex.req, Action: ActRejected, Status: s.deny.status, Note: "User-Agent " + ua})
		s.deny.send(w)
	})
}

// exception says why a blocked agent is let through ("" if it is not).
func (s *uaBlockStage) exception(r *http.Request) string {
	if s.cfg.AllowHeader != "" {
		if v := r.Header.Get(s.cfg.AllowHeader); v != "" && subtle.ConstantTimeCompare([]byte(v), []byte(s.cfg.AllowValue)) == 1 {
			s.c.inc(0, 1)
			return "the allow-list header"
		}
	}
	if len(s.nets) > 0 {
		if ip := clientIP(r); ip != nil {
			for _, n := range s.nets {
				if n.Contains(ip) {
					s.c.inc(1, 1)
					return "the allow-listed address " + ip.String()
				}
			}
		}
	}
	return ""
}
