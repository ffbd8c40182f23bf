package diagnose

import (
	"fmt"
	"math"
)

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
	w, c := f.w, f.cfg.Backlog
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
	if x <= 0 || lat <= 0 || lat < 0.5*r {
		return nil // no throughput, or think time dominates the iteration
	}
	little := f.vus / x * 1000
	// A queue the server does not time (its accept or worker queue in
	// front of Server-Timing) is outside its time yet no delay of the
	// path: the fastest request waited nothing outside (waiting's min over
	// the server's), while the average waited a lot.
	hidden := 0.0
	if wt := f.served.Waiting; f.hasServer && !f.queue.Present() && wt.Min > 0 && f.srv.Min > 0 {
		if pathFloor := max(wt.Min-f.srv.Min, 0); f.outside-pathFloor >= f.floor && pathFloor <= 0.25*f.outside {
			hidden = f.outside - pathFloor
		}
	}
	queueShare := share(f.queue.Avg+hidden, f.served.Waiting.Avg)
	// A summary of a VU ramp mixes its loads: the VUs in flight on
	// average are X·R (Little's law), somewhere below the peak. The law
	// cannot be checked against a number the file lacks; the server's
	// queue holding most of waiting is what must say it then.
	inFlight := x * r / 1000
	mixed := len(f.obs.Steps) == 0 && f.w.mixedVUs() && inFlight <= f.vus*(1+float64(c.Little))
	if mixed && queueShare < float64(c.QueueShare) {
		return nil
	}
	if !mixed && math.Abs(r-little) > float64(c.Little)*little {
		return nil
	}
	// The unloaded latency: the fastest request (the first ones find the
	// system empty), the sweep's lightest step, or the server's time with
	// everything but its queue.
	unloaded := f.served.Duration.Min
	if f.unloaded > 0 && (unloaded <= 0 || f.unloaded < unloaded) {
		unloaded = f.unloaded
	}
	if f.hasServer && f.queue.Present() {
		unloaded = f.srv.Avg + f.all.Sending.Avg + f.all.Receiving.Avg + max(f.outside, 0)
	}
	ratio := share(lat, unloaded)
	// Past a sweep's ceiling more VUs only add queue: half the ratio will do.
	need := float64(c.Ratio)
	if f.pastCeiling() {
		need /= 2
	}
	if queueShare < float64(c.QueueShare) && (unloaded <= 0 || ratio < need) {
		return nil
	}
	conf := ConfidenceMedium
	if f.model == ModelClosed && !mixed && (queueShare >= float64(c.QueueShare) || ratio >= need) {
		conf = ConfidenceHigh
	}
	fd := &Finding{Code: CodeClosedModelBacklog, Severity: SeverityWarning, Confidence: conf, ExplainsMs: max(lat-unloaded, 0)}
	// The backlog is the server's queue where the server times it; the
	// rest of it waited where Server-Timing does not look (its accept
	// queue, its listen backlog, a device's queue): outside the server.
	queued := max(lat-unloaded, 0)
	fd.claim(lineServer, min(f.queue.Avg, queued)).claim(lineOutside, queued-min(f.queue.Avg, queued))
	fd.add("vus", f.vus).add("throughput_per_s", x).add("little_ms", little).add("latency_avg_ms", lat).add("unloaded_ms", unloaded)
	if f.queue.Present() {
		fd.add("server_queue_avg_ms", f.queue.Avg)
	}
	if f.hasServer {
		fd.add("server_time_avg_ms", f.srv.Avg)
	}
	fd.Summary = fmt.Sprintf("%.0f VUs at %.0f/s: Little's law gives %s per iteration, and requests take %s, %.1f× their unloaded %s. "+
		"This is the backlog of a closed model driven past its ceiling — each request waits for those ahead of it — "+
		"not the latency users arriving at %.0f/s would see.", f.vus, x, fmtMs(little), fmtMs(lat), ratio, fmtMs(unloaded), x)
	if mixed {
		fd.add("vus_in_flight_avg", inFlight)
		fd.Summary = fmt.Sprintf("Up to %.0f VUs at %.0f/s on average: by Little's law %.0f VUs were in flight on average, and requests take %s, %.1f× their unloaded %s. "+
			"This is the backlog of a closed model driven past its ceiling — each request waits for those ahead of it — not the latency users arriving at %.0f/s would see. "+
			"A summary mixes the ramp's loads: k6's NDJSON shows at which VUs the queue builds.", f.vus, x, inFlight, fmtMs(lat), ratio, fmtMs(unloaded), x)
	}
	if f.queue.Present() {
		fd.Summary += fmt.Sprintf(" The server's own queue holds %s of it.", fmtMs(f.queue.Avg))
	}
	if hidden > 0 {
		fd.add("untimed_queue_ms", hidden)
		fd.Summary += fmt.Sprintf(" %s of waiting is outside the server's own time, yet the fastest request waited nothing there: "+
			"a queue the server does not time (its worker or accept queue), not a delay of the path.", fmtMs(hidden))
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
