package proxy

import (
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// BoxLimits are a box's deliberate bounds on slow clients and a slow next
// hop; a zero field takes the default below. They are part of a box's
// YAML (inline) and the proxy command's flags.
type BoxLimits struct {
	// ReadHeaderTimeout: a client that takes longer to send its request
	// headers is cut off (slowloris). HTTP boxes only.
	ReadHeaderTimeout units.Duration `yaml:"readHeaderTimeout"`
	// ReadTimeout: a client that takes longer to send its whole request
	// (headers and body) is cut off. HTTP boxes only.
	ReadTimeout units.Duration `yaml:"readTimeout"`
	// ResponseHeaderTimeout: a next hop that has not begun its answer this
	// long after the request was sent gets the client a 504. HTTP boxes only.
	ResponseHeaderTimeout units.Duration `yaml:"responseHeaderTimeout"`
	// MaxConns: client connections open at once; beyond it the box stops
	// accepting, and new connections wait in the listen backlog.
	MaxConns int `yaml:"maxConns"`
}

// The defaults: nginx's client_header_timeout and client_body_timeout are
// 60 s, its proxy_read_timeout 60 s; Envoy's route timeout is 15 s. The
// header timeout is shorter here because a load generator sends its
// headers at once; the others are k6's own request timeout (60 s), so a
// box never cuts a request k6 would still have waited for. The connection
// cap is above the 10,000 connections of the soak test.
const (
	DefaultReadHeaderTimeout     = 10 * time.Second
	DefaultReadTimeout           = 60 * time.Second
	DefaultResponseHeaderTimeout = 60 * time.Second
	DefaultMaxConns              = 16384
)

// withDefaults fills the zero fields from d, then from the defaults.
func (l BoxLimits) withDefaults(d BoxLimits) BoxLimits {
	pick := func(v, from units.Duration, def time.Duration) units.Duration {
		switch {
		case v > 0:
			return v
		case from > 0:
			return from
		}
		return units.Duration(def)
	}
	l.ReadHeaderTimeout = pick(l.ReadHeaderTimeout, d.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	l.ReadTimeout = pick(l.ReadTimeout, d.ReadTimeout, DefaultReadTimeout)
	l.ResponseHeaderTimeout = pick(l.ResponseHeaderTimeout, d.ResponseHeaderTimeout, DefaultResponseHeaderTimeout)
	if l.MaxConns == 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxConns == 0 {
		l.MaxConns = DefaultMaxConns
	}
	return l
}

func (l BoxLimits) validate() error {
	if l.MaxConns < 0 {
		return errField("maxConns", "must be 0 (default %d) or more, got %d", DefaultMaxConns, l.MaxConns)
	}
	return nil
}
