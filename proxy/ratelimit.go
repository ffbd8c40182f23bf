package proxy

import (
	"hash/maphash"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/proxy/internal/exchange"

	"github.com/middlebench/middlebench/internal/units"
	"golang.org/x/time/rate"
)

// RateLimitConfig is a device that lets Rate through and answers the rest
// at once (429 by default) with Retry-After and the IETF RateLimit /
// RateLimit-Policy headers, without touching the upstream.
type RateLimitConfig struct {
	Algorithm     string         `yaml:"algorithm"` // fixed-window (default), sliding-window, token-bucket
	Rate          units.Rate     `yaml:"rate"`      // allowed: 100/s
	Window        units.Duration `yaml:"window"`    // windows: default the rate's period; limit = rate × window
	Burst         int            `yaml:"burst"`     // token-bucket: bucket size (default: one period's worth)
	Key           string         `yaml:"key"`       // global (default), ip, header:NAME
	Status        int            `yaml:"status"`    // default 429
	Body          string         `yaml:"body"`
	Policy        string         `yaml:"policy"`        // policy name in the RateLimit headers (default "default")
	HeadersOnPass bool           `yaml:"headersOnPass"` // also send RateLimit headers on passed responses
}

// Rate-limit algorithms.
const (
	AlgFixedWindow   = "fixed-window"
	AlgSlidingWindow = "sliding-window"
	AlgTokenBucket   = "token-bucket"
)

// Kind is "ratelimit".
func (*RateLimitConfig) Kind() string { return "ratelimit" }

func (c *RateLimitConfig) compile() (Stage, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	s := &rateLimitStage{cfg: *c, seed: maphash.MakeSeed(),
		deny: newRejection(c.Status, c.Body, http.StatusTooManyRequests, "middlebench ratelimit: too many requests\n")}
	name := c.Policy
	if name == "" {
		name = "default"
	}
	if c.algorithm() == AlgTokenBucket {
		s.policy = strconv.Quote(name) + ";q=" + strconv.FormatInt(int64(math.Ceil(c.Rate.PerSecond())), 10) + ";w=1"
	} else {
		s.policy = strconv.Quote(name) + ";q=" + strconv.FormatInt(c.limit(), 10) + ";w=" + strconv.FormatInt(int64(math.Ceil(c.window().Seconds())), 10)
	}
	s.header, _ = strings.CutPrefix(c.Key, "header:")
	if c.Key == "" || c.Key == "global" {
		s.global = s.newLimiter()
	}
	return s, nil
}

// check is compile's field checks.
func (c *RateLimitConfig) check() error {
	switch c.Algorithm {
	case "", AlgFixedWindow, AlgSlidingWindow, AlgTokenBucket:
	default:
		return errField("algorithm", "%q: want %s, %s or %s", c.Algorithm, AlgFixedWindow, AlgSlidingWindow, AlgTokenBucket)
	}
	if c.Rate.IsZero() {
		return errField("rate", "required and above 0, e.g. 100/s")
	}
	if c.Burst < 0 {
		return errField("burst", "must not be negative")
	}
	if c.Burst > 0 && c.Algorithm != AlgTokenBucket {
		return errField("burst", "only the token-bucket algorithm has a burst")
	}
	if c.algorithm() != AlgTokenBucket {
		limit := c.limit()
		if limit < 1 {
			return errField("window", "rate × window = %.3g: a window must allow at least one request", c.Rate.PerSecond()*c.window().Seconds())
		}
		if c.algorithm() == AlgSlidingWindow && limit > 1_000_000 {
			return errField("rate", "sliding-window keeps one time per allowed request: %d is too many; use token-bucket", limit)
		}
	} else if c.Window != 0 {
		return errField("window", "the token-bucket algorithm has no window: set rate and burst")
	}
	if k := c.Key; k != "" && k != "global" && k != "ip" && (!strings.HasPrefix(k, "header:") || len(k) == len("header:")) {
		return errField("key", "%q: want global, ip or header:NAME", k)
	}
	return checkStatus("status", c.Status)
}

func (c *RateLimitConfig) algorithm() string {
	if c.Algorithm == "" {
		return AlgFixedWindow
	}
	return c.Algorithm
}

func (c *RateLimitConfig) window() time.Duration {
	if c.Window > 0 {
		return c.Window.D()
	}
	return c.Rate.Per
}

func (c *RateLimitConfig) limit() int64 {
	return int64(math.Round(c.Rate.PerSecond() * c.window().Seconds()))
}

type rateLimitStage struct {
	bound
	cfg    RateLimitConfig
	global limiter
	keyed  [16]keyShard
	seed   maphash.Seed
	header string
	deny   rejection
	policy string // RateLimit-Policy value
}

type keyShard struct {
	mu sync.Mutex
	m  map[string]*keyedLimiter
}

type keyedLimiter struct {
	limiter
	last time.Time
}

func (s *rateLimitStage) newLimiter() limiter {
	switch s.cfg.algorithm() {
	case AlgSlidingWindow:
		return newSlidingWindow(s.cfg.limit(), s.cfg.window())
	case AlgTokenBucket:
		burst := s.cfg.Burst
		if burst == 0 {
			burst = max(1, int(math.Round(s.cfg.Rate.N)))
		}
		return &tokenBucket{lim: rate.NewLimiter(rate.Limit(s.cfg.Rate.PerSecond()), burst)}
	}
	return &fixedWindow{window: int64(s.cfg.window()), limit: s.cfg.limit(), index: math.MinInt64}
}

func (s *rateLimitStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		now := s.env.clock.Now()
		d := s.limiterFor(r, now).allow(now)
		if d.ok {
			s.c.passed.Add(1)
			if s.cfg.HeadersOnPass {
				s.setHeaders(w.Header(), d)
			}
			next.ServeHTTP(w, r)
			return
		}
		s.c.reject(s.deny.status)
		ex := exchange.From(r.Context())
		s.env.record(LedgerEntry{Time: now, Conn: ex.Conn, Req: ex.Req, Action: ActRejected, Status: s.deny.status,
			Note: "retry after " + d.reset.Round(time.Millisecond).String()})
		h := w.Header()
		s.setHeaders(h, d)
		h.Set("Retry-After", strconv.FormatInt(int64(math.Ceil(d.reset.Seconds())), 10))
		s.deny.send(w)
	})
}

// instant: the stage passes or refuses every request at once.
func (s *rateLimitStage) instant(*http.Request) bool { return true }

func (s *rateLimitStage) setHeaders(h http.Header, d decision) {
	h.Set("RateLimit-Policy", s.policy)
	h.Set("RateLimit", strconv.Quote(s.policyName())+";r="+strconv.FormatInt(d.remaining, 10)+";t="+strconv.FormatInt(int64(math.Ceil(d.reset.Seconds())), 10))
}

func (s *rateLimitStage) policyName() string {
	if s.cfg.Policy == "" {
		return "default"
	}
	return s.cfg.Policy
}

// limiterFor finds the request's key's limiter, making it on first use.
// Keys idle for ten windows are swept when a shard grows past 4096.
func (s *rateLimitStage) limiterFor(r *http.Request, now time.Time) limiter {
	if s.global != nil {
		return s.global
	}
	var key string
	if s.header != "" {
		key = r.Header.Get(s.header)
	} else if ip := clientIP(r); ip != nil {
		key = ip.String()
	}
	sh := &s.keyed[maphash.String(s.seed, key)%uint64(len(s.keyed))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = map[string]*keyedLimiter{}
	}
	kl, ok := sh.m[key]
	if !ok {
		if len(sh.m) >= 4096 {
			idle := 10 * max(s.cfg.window(), time.Second)
			for k, v := range sh.m {
				if now.Sub(v.last) > idle {
					delete(sh.m, k)
				}
			}
		}
		kl = &keyedLimiter{limiter: s.newLimiter()}
		sh.m[key] = kl
	}
	kl.last = now
	return kl
}
