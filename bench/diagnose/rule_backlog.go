package diagnose

import (
	"fmt"
	"math"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeClosedModelBacklog names seed 003's lesson: a closed model's queue.
const CodeClosedModelBacklog = "closed-model-backlog"

// backlogThresholds: seed 003's closed-model backlog.
type backlogThresholds struct {
	Little     Ratio `yaml:"little"`      // |latency − VUs/throughput| ≤ this share (Little's law holds)
	Ratio      Ratio `yaml:"ratio"`       // latency ≥ this many times the unloaded latency
	QueueShare Ratio `yaml:"queue_share"` // with the server's time: the queue (its own, and outside it) ≥ this share of latency
	// Busy: the requests take at least this share of an iteration (else
	// think time, not the queue, sets the loop's pace).
	Busy Ratio `yaml:"busy"`
	// Min: a queue shorter than this (or the floor) is no backlog.
	Min units.Duration `yaml:"min"`
}

// closedModelBacklog is seed 003's lesson: with a closed model (N VUs, each
// waiting for its response) driven past the system's capacity, latency is
// the backlog — requests wait for those ahead of them — and Little's law
// gives it: latency ≈ VUs / throughput. It answers "how much can it push
// out", not the SLO question "at R req/s, what is p95?" (400 VUs at ~190/s:
// ≈ 2.1 s; an open model at 190/s: 94 ms). Little's law holds for any
// closed loop, so the rule also needs the latency to be mostly waiting in
// line: the server's own queue, or latency many times the unloaded one.
// Where the queue is a phase another rule owns (receiving for a download
// cap, sending for an upload), that rule names it instead.
func closedModelBacklog(f *facts) *Finding {
	w, c := f.w, thresholdsOf[backlogThresholds](f.cfg)
	if f.model == ModelOpen || f.vus < 2 || w.Seconds <= 0 {
		return nil
	}
	n := w.Iterations
	if n == 0 {
		n = w.Requests
	}
	x := float64(n) / w.Seconds
	lat := f.served.Duration.Avg
	r := w.IterAvg
	if r == 0 {
		r = lat + f.all.Blocked.Avg
	}
	if x <= 0 || lat <= 0 || lat < float64(c.Busy)*r {
		return nil // no throughput, or think time dominates the iteration
	}
	little := f.vus / x * 1000
	// The queue is the wait outside the server's own work: the queue the
	// server reports, and the time outside its own time beyond the path's
	// floor (the fastest request's time outside: what the path costs
	// when nothing waits). A long tail or two modes in the server's own
	// time is the server's, not a backlog. Without the server's time only
	// a sweep's lightest step tells the unloaded latency; the fastest
	// request is never the estimate (the first ones of a bimodal server
	// are just the fast mode).
	var queued, unloaded float64
	untimed := 0.0
	switch {
	case f.hasServer:
		if wt := f.served.Waiting; f.outside > 0 {
			// Without either, a queue outside cannot be told from a
			// delay of the path: none is claimed.
			pathFloor := f.outside
			switch {
			case f.quietOutside >= 0: // a sweep: its quietest step
				pathFloor = f.quietOutside
			case wt.Min > 0 && f.srv.Min > 0:
				pathFloor = max(wt.Min-f.srv.Min-f.queue.Min, 0)
			}
			untimed = max(f.outside-pathFloor, 0)
		}
		queued = f.queue.Avg + untimed
		unloaded = max(lat-queued, 0)
	case f.unloaded > 0:
		unloaded = f.unloaded
		queued = max(lat-unloaded, 0)
	default:
		// Neither the server's time nor steps: a queue and a slow service
		// look alike. Every request slow (the median, not only the mean,
		// many times the fastest) is what a backlog does and a long tail
		// does not; the finding says the other reading.
		d := f.served.Duration
		if d.Min <= 0 || d.Med < float64(c.Ratio)*d.Min {
			return nil
		}
		unloaded, queued = d.Min, max(lat-d.Min, 0)
	}
	queueShare := share(queued, lat)
	if queued < max(f.floor, timing.Millis(c.Min)) {
		return nil
	}
	// A summary of a VU ramp mixes its loads: the VUs in flight on
	// average are X·R (Little's law), somewhere below the peak. The law
	// cannot be checked against a number the file lacks; the queue
	// holding most of the latency is what must say it then.
	inFlight := x * r / 1000
	mixed := len(f.obs.Steps) == 0 && f.w.mixedVUs() && inFlight <= f.vus*(1+float64(c.Little))
	if !mixed && math.Abs(r-little) > float64(c.Little)*little {
		return nil
	}
	ratio := share(lat, unloaded)
	// Past a sweep's ceiling more VUs only add queue: half the ratio, and
	// half the queue's share, will do.
	need, needShare := float64(c.Ratio), float64(c.QueueShare)
	if f.pastCeiling() {
		need, needShare = need/2, needShare/2
	}
	if f.hasServer && queueShare < needShare || !f.hasServer && ratio < need {
		return nil
	}
	conf := ConfidenceMedium
	if f.model == ModelClosed && !mixed && f.hasServer {
		conf = ConfidenceHigh
	}
	if !f.hasServer && f.unloaded == 0 {
		conf = ConfidenceLow
	}
	fd := &Finding{Code: CodeClosedModelBacklog, Severity: SeverityWarning, Confidence: conf, ExplainsMs: queued}
	// The backlog is the server's queue where the server times it; the
	// rest of it waited where Server-Timing does not look: outside the
	// server.
	fd.claim(lineServer, min(f.queue.Avg, queued)).claim(lineOutside, queued-min(f.queue.Avg, queued))
	fd.add("vus", f.vus).add("throughput_per_s", x).add("little_ms", little).add("latency_avg_ms", lat).add("queued_ms", queued).add("unloaded_ms", unloaded)
	if f.queue.Present() {
		fd.add("server_queue_avg_ms", f.queue.Avg)
	}
	if f.hasServer {
		fd.add("server_time_avg_ms", f.srv.Avg)
	}
	without := "without the queue"
	switch {
	case !f.hasServer && f.unloaded > 0:
		without = "in the sweep's lightest step"
	case !f.hasServer:
		without = "the fastest request; the median is " + metrics.FormatMs(f.served.Duration.Med)
	}
	fd.Summary = fmt.Sprintf("%.0f VUs at %.0f/s: Little's law gives %s per iteration, and requests take %s, of which %s waited in a queue (%s %s). "+
		"This is the backlog of a closed model driven past its ceiling — each request waits for those ahead of it — "+
		"not the latency users arriving at %.0f/s would see.", f.vus, x, metrics.FormatMs(little), metrics.FormatMs(lat), metrics.FormatMs(queued), metrics.FormatMs(unloaded), without, x)
	if mixed {
		fd.add("vus_in_flight_avg", inFlight)
		fd.Summary = fmt.Sprintf("Up to %.0f VUs at %.0f/s on average: by Little's law %.0f VUs were in flight on average, and requests take %s, of which %s waited in a queue (%s %s). "+
			"This is the backlog of a closed model driven past its ceiling — each request waits for those ahead of it — not the latency users arriving at %.0f/s would see. "+
			"A summary mixes the ramp's loads: k6's NDJSON shows at which VUs the queue builds.", f.vus, x, inFlight, metrics.FormatMs(lat), metrics.FormatMs(queued), metrics.FormatMs(unloaded), without, x)
	}
	if f.queue.Avg > 0 {
		fd.Summary += fmt.Sprintf(" The server's own queue holds %s of it.", metrics.FormatMs(f.queue.Avg))
	}
	if untimed > 0 {
		fd.add("untimed_queue_ms", untimed)
		fd.Summary += fmt.Sprintf(" %s of it is outside the server's own time, and the fastest request waited nothing there: "+
			"a queue the server does not time (its worker or accept queue) or a load balancer's connection queue in front of it — "+
			"k6's file cannot tell which.", metrics.FormatMs(untimed))
		fd.alternative("", "a load balancer's or proxy's connection queue (maxconn on a backend) in front of the server looks the same from k6: "+
			"the balancer's queue counters (haproxy's qcur/qtime, nginx's upstream queue) or the server's own accept and worker counters would tell")
	}
	if !f.hasServer && f.unloaded == 0 {
		fd.alternative(CodeServerSlow, "a server whose own work takes this long for every request: without the server's time "+
			"(--server-stats, the APM's figures, a Server-Timing trend) or a sweep's steps (k6's NDJSON), a queue and a slow service look alike")
	}
	fd.Suspect = []string{
		"whatever caps throughput (worker or connection pool, DB, fsync, a device): the VUs queue in front of it",
		"more VUs than the system can serve at once",
	}
	fd.Next = []string{
		"for an SLO answer, run an open model (constant-arrival-rate) at the rates you care about and read p95 there",
		"lower the VUs: latency falls to the service time while TPS stays at the ceiling",
		"find what caps throughput: the server's pools and workers, its DB, the devices on the path",
	}
	return fd
}
