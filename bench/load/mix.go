package load

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// target is one request of the mix, prepared once.
type target struct {
	idx     int
	name    string // the name tag
	url     string // the url tag
	method  string
	u       *url.URL
	header  http.Header                   // read-only once built
	body    []byte                        // the request body (generatedBody), read-only; nil: none
	getBody func() (io.ReadCloser, error) // a fresh reader of body (net/http's GetBody), made once
	cum     float64                       // cumulative weight, for picking
	h1head  []byte                        // the lean client's request head; nil: net/http sends it (renderHead)
}

// h1Addr returns the one address every request of the mix goes to when
// the lean client can send them all, else "" (one VU, one connection pool:
// a mix split between two clients would open two connections where k6
// opens one).
func (m *mix) h1Addr() string {
	addr := ""
	for _, t := range m.targets {
		if t.h1head == nil || (addr != "" && h1Addr(t.u) != addr) {
			return ""
		}
		addr = h1Addr(t.u)
	}
	return addr
}

// mix is the weighted set of requests; pick is a binary search.
type mix struct {
	targets []*target
	total   float64
}

func newMix(cfg *Config) (*mix, error) {
	m := &mix{}
	bodies := map[int64][]byte{} // one copy per size, whatever the number of targets
	for i, r := range cfg.mix() {
		u, err := url.Parse(r.URL)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i, err)
		}
		method := strings.ToUpper(r.Method)
		if method == "" {
			method = http.MethodGet
			if r.BodySize > 0 {
				method = http.MethodPost
			}
		}
		h := http.Header{}
		for k, v := range r.Headers {
			h.Set(k, v)
		}
		if ua := cfg.userAgent(); h.Get("User-Agent") == "" {
			// An empty value makes net/http send no User-Agent at all.
			h["User-Agent"] = []string{ua}
		}
		if cfg.Compress && h.Get("Accept-Encoding") == "" {
			h.Set("Accept-Encoding", "gzip")
		}
		w := r.Weight
		if w == 0 {
			w = 1 // an unweighted entry counts 1
		}
		// k6: both tags are the URL, or both the name when one is given.
		name := u.String()
		if r.Name != "" {
			name = r.Name
		}
		m.total += w
		t := &target{idx: i, name: name, url: name, method: method, u: u, header: h, cum: m.total}
		if n := r.BodySize.Bytes(); n > 0 {
			if bodies[n] == nil {
				bodies[n] = generatedBody(n)
			}
			t.body = bodies[n]
			t.getBody = bodyReader(t.body)
		} else {
			host := u.Host
			if hv := h.Get("Host"); hv != "" {
				host = hv
			}
			t.h1head, _ = renderHead(method, u, host, h, cfg.NoConnectionReuse)
		}
		m.targets = append(m.targets, t)
	}
	return m, nil
}

func (m *mix) pick(r *rand.Rand) *target {
	if len(m.targets) == 1 {
		return m.targets[0]
	}
	x := r.Float64() * m.total
	i := sort.Search(len(m.targets), func(i int) bool { return m.targets[i].cum > x })
	if i == len(m.targets) {
		i--
	}
	return m.targets[i]
}
