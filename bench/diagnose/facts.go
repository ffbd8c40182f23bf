package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/timing"
)

// facts are the numbers of one window (the whole run or one step) that the
// rules read, derived once.
type facts struct {
	cfg   *Config
	obs   *Observation
	w     *Window
	name  string // step name ("" for the whole run)
	model Model
	vus   float64
	floor float64 // ms

	all    *Phases // every request
	served *Phases // the requests to set beside the server's time

	hasServer   bool
	srv         Stat  // the server's own (app) time
	queue       Stat  // the server's queue time, when it reports one
	srvRequests int64 // -1: not known

	outside    float64 // waiting − server time − queue, avg (ms)
	outsideP95 float64 // the same with p95s (an estimate: p95s do not add)

	// unloaded is the lowest average latency of the sweep's steps: what a
	// request costs without a queue (0 without steps).
	unloaded float64
	// quietConnect is the lowest average connecting time of the sweep's
	// steps (-1 without steps): what a dial costs when nothing is busy.
	quietConnect float64
	// quietOutside is the lowest time outside the server of the sweep's
	// steps (-1 without steps or server time): what the path costs when
	// nothing queues.
	quietOutside float64
	// sweeps holds the sweep findings that name this window (the whole
	// run: every sweep finding).
	sweeps map[string]*Finding
	fired  map[string]*Finding
	b      budget // what the findings so far explain
}

func newFacts(cfg *Config, obs *Observation, w *Window, name string) *facts {
	f := &facts{
		cfg: cfg, obs: obs, w: w, name: name,
		model:       obs.Run.Model,
		vus:         w.VUs,
		floor:       timing.Millis(cfg.Floor),
		all:         &w.Phases,
		served:      w.Served(),
		srvRequests: -1,
		fired:       map[string]*Finding{},
		sweeps:      map[string]*Finding{},
	}
	if f.vus == 0 && name == "" {
		f.vus = float64(obs.Run.VUs)
	}
	// The server's time as each request recorded it (Server-Timing, k6's
	// server_time and server_queue trends) comes before the server's own
	// view: it is set beside the very requests whose waiting it splits,
	// while the view also counts requests k6 never recorded (cut at
	// gracefulStop: 0s, answered 499 to a client gone). The view still
	// gives the counts, and the queue when requests did not record it.
	switch {
	case w.Phases.Server.Present():
		f.hasServer, f.srv, f.queue = true, w.Phases.Server, w.Phases.ServerQueue
		if !f.queue.Present() && w.Server != nil {
			f.queue = w.Server.Queue
		}
	case w.Server != nil && w.Server.Time.Present():
		f.hasServer, f.srv, f.queue = true, w.Server.Time, w.Server.Queue
	}
	if w.Server != nil {
		f.srvRequests = w.Server.Requests
	}
	f.quietConnect, f.quietOutside = -1, -1
	for i := range obs.Steps {
		s := &obs.Steps[i]
		if p := s.Served(); s.Requests >= cfg.MinRequests && s.Phases.Server.Present() {
			o := max(p.Waiting.Avg-s.Phases.Server.Avg-s.Phases.ServerQueue.Avg, 0)
			if f.quietOutside < 0 || o < f.quietOutside {
				f.quietOutside = o
			}
		}
		if c := s.Phases.Connecting.Avg; s.Requests >= cfg.MinRequests && (f.quietConnect < 0 || c < f.quietConnect) {
			f.quietConnect = c
		}
		if d := s.Served().Duration.Avg; s.Requests >= cfg.MinRequests && d > 0 && (f.unloaded == 0 || d < f.unloaded) {
			f.unloaded = d
		}
	}
	if f.hasServer {
		wt := f.served.Waiting
		f.outside = wt.Avg - f.srv.Avg - f.queue.Avg
		f.outsideP95 = wt.Tail() - f.srv.Tail() - f.queue.Tail()
	}
	f.b = newBudget(f)
	return f
}

// outsideStat is the time outside the server as the report prints it:
// absent when negative (the waiting then mixes requests the server never
// timed; never a negative time, see honesty).
func (f *facts) outsideStat() Stat {
	if !f.hasServer || f.outside < 0 {
		return Stat{}
	}
	return Stat{Avg: f.outside, P95: max(f.outsideP95, 0)}
}

// stepFacts returns the facts of the steps that have enough requests to
// be judged (and the server's time, if withServer), in order.
func stepFacts(obs *Observation, cfg *Config, withServer bool) []*facts {
	var out []*facts
	for i := range obs.Steps {
		s := &obs.Steps[i]
		if s.Requests < cfg.MinRequests {
			continue
		}
		if f := newFacts(cfg, obs, &s.Window, s.Name); !withServer || f.hasServer && f.srv.Tail() > 0 {
			out = append(out, f)
		}
	}
	return out
}

// share is a/b, 0 when b is not positive.
func share(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func (f *facts) has(code string) bool { return f.fired[code] != nil }

// bytesPer returns bytes per request of a counter.
func (f *facts) bytesPer(n int64) float64 { return share(float64(n), float64(f.w.Requests)) }

// generatorLine is what the article asks to rule out before blaming the
// path: the generator's CPU and dropped iterations.
func (f *facts) generatorLine() string {
	cpu := "not known (pass --generator-cpu or use middlebench's results document)"
	if f.w.CPU > 0 {
		cpu = fmt.Sprintf("%.0f %%", f.w.CPU)
	}
	if f.w.CPUOthers > 0 {
		cpu += fmt.Sprintf(" and other processes' %.0f %% of its CPUs", f.w.CPUOthers)
	}
	return fmt.Sprintf("rule out generator saturation first: generator CPU %s (keep it under %.0f %%), %d dropped iterations",
		cpu, float64(thresholdsOf[generatorThresholds](f.cfg).CPU), f.w.Dropped)
}

// fmtBytes prints a byte count in k6's decimal units (metrics.HumanizeBytes).
func fmtBytes(v float64) string { return metrics.HumanizeBytes(v) }

// pct prints a share with one decimal, or as many more as it takes not to
// round a share short of all (or above none) to 100.0 % (0.0 %): 64,289 of
// 64,306 is 99.97 %.
func pct(v float64) string {
	for d := 1; ; d++ {
		s := strconv.FormatFloat(v*100, 'f', d, 64)
		if d == 6 || !(v < 1 && strings.HasPrefix(s, "100.") || v > 0 && strings.Trim(s, "0.") == "") {
			return s + " %"
		}
	}
}
