package fakeserver

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/middlebench/middlebench/internal/units"
)

// spec is what one request asks for: the server's defaults, overridden by
// the query.
type spec struct {
	work   units.Dist
	cpu    time.Duration
	size   int64
	status int
}

// overrideParams are the query parameters the server understands; any
// other parameter (a cache buster, a tag) is ignored.
const overrideParams = "work, cpu, size, status"

// limits bounds what a request may ask for (Config's MaxWork, MaxCPU,
// MaxSize with their defaults): a typo or a hostile query must not hold a
// core or a connection for an hour.
type limits struct {
	work, cpu time.Duration
	size      units.Size
}

// checkWork: a work distribution's mean within the bound (a draw above
// it is cut at it, see Server.work).
func checkWork(d units.Dist, limit time.Duration) error {
	if m := d.Mean(); m > limit {
		return fmt.Errorf("%v (mean %v) is above the server's limit of %v", d, m, limit)
	}
	return nil
}

func checkCPU(d time.Duration, limit time.Duration) error {
	switch {
	case d < 0:
		return fmt.Errorf("%v: must not be negative", d)
	case d > limit:
		return fmt.Errorf("%v is above the server's limit of %v", d, limit)
	}
	return nil
}

// parseSpec applies ?work=&cpu=&size=&status= to the defaults, within lim.
// It walks the raw query by hand so that a request without overrides
// allocates nothing.
func parseSpec(rawQuery string, def spec, lim limits) (spec, error) {
	s := def
	for q := rawQuery; q != ""; {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "work", "cpu", "size", "status":
		default:
			continue
		}
		if strings.ContainsAny(v, "%+") {
			u, err := url.QueryUnescape(v)
			if err != nil {
				return s, fmt.Errorf("query parameter %s=%q: bad escape", k, v)
			}
			v = u
		}
		var err error
		switch k {
		case "work":
			s.work, err = units.ParseDist(v)
			if err == nil {
				err = checkWork(s.work, lim.work)
			}
		case "cpu":
			var d units.Duration
			d, err = units.ParseDuration(v)
			s.cpu = d.D()
			if err == nil {
				err = checkCPU(s.cpu, lim.cpu)
			}
		case "size":
			var z units.Size
			z, err = units.ParseSize(v)
			if err == nil && z > lim.size {
				err = fmt.Errorf("%v is above the server's limit of %v", z, lim.size)
			}
			s.size = z.Bytes()
		case "status":
			s.status, err = strconv.Atoi(v)
			if err != nil || s.status < 200 || s.status > 599 {
				err = fmt.Errorf("want a status from 200 to 599, got %q", v)
			}
		}
		if err != nil {
			return s, fmt.Errorf("query parameter %s: %w", k, err)
		}
	}
	return s, nil
}
