package mystery

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/middlebench/middlebench/fakeserver"
	"github.com/middlebench/middlebench/internal/units"
)

// The drawing functions of the catalogue: each picks its size from a fixed
// list, so that a seed means the same mystery on every machine.

func tlsDelay(ms ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		d := pick(r, ms...)
		return drawn{stage: fmt.Sprintf("tls:handshakeDelay=%gms", d), ms: d,
			what: fmt.Sprintf("TLS terminator starts each handshake %g ms late", d)}
	}
}

func acceptLimit(rates ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		n := pick(r, rates...)
		return drawn{stage: fmt.Sprintf("accept:rate=%g/s,burst=1", n), rate: n,
			what: fmt.Sprintf("firewall accepts %g new connections/s", n)}
	}
}

func linkLatency(ms ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		d := pick(r, ms...)
		return drawn{stage: fmt.Sprintf("link:latency=%gms", d), ms: d,
			what: fmt.Sprintf("link adds %g ms each way (RTT %g ms)", d, 2*d)}
	}
}

func bandwidthCap(kibps ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		k := pick(r, kibps...)
		return drawn{stage: fmt.Sprintf("bandwidth:down=%.0fKiB/s", k), rate: k * 1024,
			what: fmt.Sprintf("downlink capped at %.0f KiB/s for all connections", k)}
	}
}

func wafDelay(ms ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		d := pick(r, ms...)
		return drawn{stage: fmt.Sprintf("waf:delay=%gms", d), ms: d,
			what: fmt.Sprintf("WAF inspects each request for %g ms", d)}
	}
}

func rateLimit(rates ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		n := pick(r, rates...)
		return drawn{stage: fmt.Sprintf("ratelimit:rate=%g/s,window=1s", n), rate: n,
			what: fmt.Sprintf("rate limiter allows %g requests/s (fixed 1 s windows), 429 beyond", n)}
	}
}

func faultDelay(percents ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		p := pick(r, percents...)
		d := pick(r, 300.0, 500.0)
		return drawn{stage: fmt.Sprintf("fault:delay=%gms,delayPercent=%g,spread=even", d, p), ms: d, rate: p,
			what: fmt.Sprintf("a device holds %g %% of requests for %g ms", p, d)}
	}
}

func serverWork(ms ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		d := pick(r, ms...)
		return drawn{ms: d, what: fmt.Sprintf("the server works %g ms per request", d),
			server: func(c *fakeserver.Config) { c.Work = fixedDist(d) }}
	}
}

func workerPool(workers ...int) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		n := pick(r, workers...)
		return drawn{rate: float64(n), what: fmt.Sprintf("the server has %d worker(s); the rest queue", n),
			server: func(c *fakeserver.Config) { c.Workers = n }}
	}
}

func serverCPU(ms ...float64) func(*rand.Rand) drawn {
	return func(r *rand.Rand) drawn {
		d := pick(r, ms...)
		return drawn{ms: d, what: fmt.Sprintf("the server burns %g ms of CPU per request", d),
			server: func(c *fakeserver.Config) { c.CPU = units.Duration(time.Duration(d * float64(time.Millisecond))) }}
	}
}

// fixedDist is a fixed delay of ms milliseconds.
func fixedDist(ms float64) units.Dist {
	d, err := units.ParseDist(fmt.Sprintf("%gms", ms))
	if err != nil {
		panic(err) // the catalogue's values are literals: cannot happen
	}
	return d
}
