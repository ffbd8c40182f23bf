package fakeserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/middlebench/middlebench/internal/clock"
	"github.com/middlebench/middlebench/internal/loopback"
	"github.com/middlebench/middlebench/internal/units"
)

// Config is what the server does per request unless the query overrides it.
// The zero Config answers 200 with an empty body at once on 127.0.0.1:0.
type Config struct {
	Listen    string         `yaml:"listen"`    // host:port; default 127.0.0.1:0; loopback only unless AllowRemote
	Work      units.Dist     `yaml:"work"`      // time spent "working" (sleeping), per request
	CPU       units.Duration `yaml:"cpu"`       // CPU time burnt per request (spinning), on top of Work
	Workers   int            `yaml:"workers"`   // concurrent requests served; 0 = unlimited
	MaxQueue  int            `yaml:"maxQueue"`  // requests waiting for a worker beyond which 503 is answered; 0 = unlimited
	Size      units.Size     `yaml:"size"`      // response body size
	Status    int            `yaml:"status"`    // response status; default 200
	Gzip      bool           `yaml:"gzip"`      // gzip the body when the client accepts it
	ReadRate  units.ByteRate `yaml:"readRate"`  // request-body read cap, shared by all connections; 0 = none
	WriteRate units.ByteRate `yaml:"writeRate"` // response write cap, shared by all connections; 0 = none
	TLS       bool           `yaml:"tls"`       // serve HTTPS with an in-memory self-signed certificate
	Seed      uint64         `yaml:"seed"`      // seeds the work distribution's draws
	MaxSize   units.Size     `yaml:"maxSize"`   // largest ?size= accepted; default 1GiB
	MaxWork   units.Duration `yaml:"maxWork"`   // largest ?work= mean accepted (and longest draw); default 60s
	MaxCPU    units.Duration `yaml:"maxCPU"`    // largest ?cpu= accepted; default 10s

	// ReadHeaderTimeout bounds how long a client may take to send a
	// request's headers (slowloris); default 10 s. ReadTimeout bounds the
	// whole request, headers and body; default 60 s, k6's own request
	// timeout, so a request the server cuts had already failed at k6.
	ReadHeaderTimeout units.Duration `yaml:"readHeaderTimeout"`
	ReadTimeout       units.Duration `yaml:"readTimeout"`

	// AdminListen, when set, serves the admin paths on a listener of their
	// own (host:port, loopback only unless AllowRemote), the only one
	// where POST /_mb/reset works.
	AdminListen string `yaml:"adminListen"`

	// AllowRemote lets Listen be beyond loopback (every interface, a LAN IP).
	AllowRemote bool `yaml:"allowRemote"`

	// Clock times the work, the caps and Server-Timing; nil is the wall
	// clock with a precise sleeper. Tests inject a clock.Fake.
	Clock clock.Clock `yaml:"-"`
}

// The slow-client defaults (nginx: client_header_timeout and
// client_body_timeout 60 s; the header one is shorter here because a
// benchmark's client sends its headers at once).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
)

// The bounds of a request's parameters: ?size= so that a typo cannot
// make the server stream forever; ?work= at k6's own request timeout (a
// longer one had failed at the client already); ?cpu= at 10 s of a core,
// far above any handler the experiments model (bcrypt: milliseconds).
const (
	defaultMaxSize = units.GiB
	defaultMaxWork = 60 * time.Second
	defaultMaxCPU  = 10 * time.Second
)

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("fakeserver config")

// Validate checks the fields that the types themselves cannot.
func (c *Config) Validate() error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, a...))
	}
	if err := loopback.CheckListen(c.Listen, c.AllowRemote); err != nil {
		return bad("listen", "%v", err)
	}
	if c.AdminListen != "" {
		if err := loopback.CheckListen(c.AdminListen, c.AllowRemote); err != nil {
			return bad("adminListen", "%v", err)
		}
	}
	switch {
	case c.Workers < 0:
		return bad("workers", "must be 0 (unlimited) or more, got %d", c.Workers)
	case c.MaxQueue < 0:
		return bad("maxQueue", "must be 0 (unlimited) or more, got %d", c.MaxQueue)
	case c.MaxQueue > 0 && c.Workers == 0:
		return bad("maxQueue", "needs workers: without a pool nothing queues")
	case c.Status != 0 && (c.Status < 200 || c.Status > 599):
		return bad("status", "must be from 200 to 599, got %d", c.Status)
	case c.MaxSize < 0 || c.MaxWork < 0 || c.MaxCPU < 0:
		return bad("maxSize, maxWork, maxCPU", "must be 0 (the default) or more")
	case c.Size < 0:
		return bad("size", "must not be negative, got %v", c.Size)
	case c.Size > c.maxSize():
		return bad("size", "%v is above maxSize %v", c.Size, c.maxSize())
	case checkWork(c.Work, c.limits().work) != nil:
		return bad("work", "%v (or maxWork)", checkWork(c.Work, c.limits().work))
	case checkCPU(c.CPU.D(), c.limits().cpu) != nil:
		return bad("cpu", "%v (or maxCPU)", checkCPU(c.CPU.D(), c.limits().cpu))
	case c.ReadHeaderTimeout < 0:
		return bad("readHeaderTimeout", "must be 0 (default %v) or more, got %v", DefaultReadHeaderTimeout, c.ReadHeaderTimeout)
	case c.ReadTimeout < 0:
		return bad("readTimeout", "must be 0 (default %v) or more, got %v", DefaultReadTimeout, c.ReadTimeout)
	}
	return nil
}

func (c *Config) maxSize() units.Size {
	if c.MaxSize > 0 {
		return c.MaxSize
	}
	return defaultMaxSize
}

// limits are the request parameters' bounds, defaults filled in.
func (c *Config) limits() limits {
	l := limits{work: c.MaxWork.D(), cpu: c.MaxCPU.D(), size: c.maxSize()}
	if l.work <= 0 {
		l.work = defaultMaxWork
	}
	if l.cpu <= 0 {
		l.cpu = defaultMaxCPU
	}
	return l
}

func (c *Config) status() int {
	if c.Status == 0 {
		return 200
	}
	return c.Status
}

func (c *Config) readHeaderTimeout() time.Duration {
	if c.ReadHeaderTimeout > 0 {
		return c.ReadHeaderTimeout.D()
	}
	return DefaultReadHeaderTimeout
}

func (c *Config) readTimeout() time.Duration {
	if c.ReadTimeout > 0 {
		return c.ReadTimeout.D()
	}
	return DefaultReadTimeout
}
